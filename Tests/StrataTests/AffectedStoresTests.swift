import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data's `NSFetchRequest.affectedStores` (issue 33): a fetch searches only the stores it
/// names, every store when `nil`. Checked on a coordinator with two stores of each pair of
/// kinds (an atomic store's tables, an incremental store's snapshots), for objects, IDs and
/// counts, sorted and windowed, with the context's unsaved objects counted for the store they
/// go to.
@Suite struct AffectedStoresTests {
    /// A store file of `kind` holding books of `titles`, saved by a coordinator of its own.
    static func storeFile(_ kind: StoreKind, titles: [String]) async throws -> URL {
        let url = try ScratchStores.folder().appendingPathComponent("\(UUID().uuidString).\(kind.rawValue)")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await coordinator.addPersistentStore(type: kind.type, at: url)
        try await backgroundContext(coordinator).perform { context in
            for (index, title) in titles.enumerated() {
                let book = try Book(context: context)
                book.title = title
                book.pages = index + 1
            }
            try context.save()
        }
        return url
    }

    /// The titles a fetch of books searching `stores` gives, sorted; its IDs and count agree.
    static func titles(_ stores: [PersistentStore]?, limit: Int = 0, in context: isolated ManagedObjectContext) throws -> String {
        var request = FetchRequest<Book>(sortDescriptors: [.ascending("title")])
        request.affectedStores = stores
        request.fetchLimit = limit
        let objects = try context.fetch(request)
        #expect(try context.fetchObjectIDs(request) == objects.map(\.objectID))
        #expect(try context.count(for: request) == objects.count)
        return objects.map(\.title).joined(separator: ",")
    }

    @Test(arguments: [(StoreKind.sqlite, StoreKind.sqlite), (.binary, .sqlite), (.sqlite, .binary), (.binary, .xml)])
    func aFetchSearchesOnlyTheStoresItNames(_ kinds: (StoreKind, StoreKind)) async throws {
        let first = try await Self.storeFile(kinds.0, titles: ["Emma", "Persuasion", "Sanditon"])
        let second = try await Self.storeFile(kinds.1, titles: ["Beloved", "Jazz"])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let firstStore = try await coordinator.addPersistentStore(type: kinds.0.type, at: first)
        let secondStore = try await coordinator.addPersistentStore(type: kinds.1.type, at: second)
        let answers = try await backgroundContext(coordinator).perform { context in
            let unsaved = try Book(context: context)  // goes to the first writable store
            unsaved.title = "Lady Susan"
            return [
                try Self.titles(nil, in: context), try Self.titles([firstStore], in: context), try Self.titles([secondStore], in: context),
                try Self.titles([secondStore], limit: 1, in: context), try Self.titles([secondStore, firstStore], limit: 2, in: context),
                try Self.titles([], in: context),
                // Without unsaved changes, a store that alone holds the answer sorts and windows it.
                try { context.rollback(); return try Self.titles([secondStore], limit: 1, in: context) }(),
                try Self.titles([firstStore], limit: 2, in: context),
            ]
        }
        #expect(answers == [
            "Beloved,Emma,Jazz,Lady Susan,Persuasion,Sanditon", "Emma,Lady Susan,Persuasion,Sanditon", "Beloved,Jazz", "Beloved",
            "Beloved,Emma", "", "Beloved", "Emma,Persuasion",
        ])
    }
}
