import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// A store added read-only (Core Data's `NSReadOnlyPersistentStoreOption`) refuses every write
/// with an error that says so (`.readOnlyStore`, Core Data's `NSPersistentStoreSaveError`
/// class), and writes nothing: a save, a batch request, a history deletion.
@Suite struct ReadOnlyStoreTests {
    static let kinds: [StoreKind] = [.binary, .sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    @Test(arguments: kinds)
    func writesToAReadOnlyStoreAreRefusedAsSuch(_ kind: StoreKind) async throws {
        PostgresStore.register()
        let url = kind == .postgres
            ? try await PostgresTestServer.newStoreURL() : try ScratchStores.folder().appendingPathComponent("\(UUID().uuidString).\(kind.rawValue)")
        let options: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]
        let writer = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await writer.addPersistentStore(type: kind.type, at: url, options: options)
        try await backgroundContext(writer).perform { context in
            let book = try Book(context: context)
            book.title = "Kept"
            try context.save()
        }
        try await writer.removePersistentStore(writer.persistentStores[0])

        let reader = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await reader.addPersistentStore(type: kind.type, at: url, options: options.merging([PersistentStoreOption.readOnly: true]) { $1 })
        let save = await #expect(throws: PersistenceError.self) {
            try await backgroundContext(reader).perform { context in
                try context.fetch(FetchRequest<Book>())[0].title = "Changed"
                try context.save()
            }
        }
        #expect(save?.code == .readOnlyStore)
        let batch = await #expect(throws: PersistenceError.self) {
            try await backgroundContext(reader).perform { context in
                try context.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["title": .constant("Batched")]))
            }
        }
        #expect(batch?.code == .readOnlyStore)
        let history = await #expect(throws: PersistenceError.self) {
            try await reader.execute(.deleteHistory(before: nil as PersistentHistoryToken?))
        }
        #expect(history?.code == .readOnlyStore)
        let titles = try await backgroundContext(reader).perform { context in try context.fetch(FetchRequest<Book>()).map(\.title) }
        #expect(titles == ["Kept"], "nothing was written")
    }
}
