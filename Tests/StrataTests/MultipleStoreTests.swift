import Foundation
@testable import Strata
import Testing

/// One coordinator, two stores: a save that changes objects of both commits each store's
/// objects to its own file, and new objects go to the first store, as in Core Data.
@Suite struct MultipleStoreTests {
    /// Saves three tags labelled `<prefix> 0…2` into a new store at `url`.
    static func makeStore(at url: URL, prefix: String) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(type: .binary, at: url)
        try await backgroundContext(coordinator).perform { context in
            for index in 0..<3 {
                let tag = try Tag(context: context)
                tag.label = "\(prefix) \(index)"
            }
            try context.save()
        }
        try await coordinator.removePersistentStore(store)
    }

    /// The tag labels saved in the store at `url`, sorted.
    static func labels(at url: URL) async throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(type: .binary, at: url)
        let labels = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).map(\.label)
        }
        try await coordinator.removePersistentStore(store)
        return labels
    }

    @Test func aSaveAcrossTwoStoresWritesEachStoresOwnObjects() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("First.store")
        let second = directory.appendingPathComponent("Second.store")
        try await Self.makeStore(at: first, prefix: "first")
        try await Self.makeStore(at: second, prefix: "second")

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let stores = [
            try await coordinator.addPersistentStore(type: .binary, at: first),
            try await coordinator.addPersistentStore(type: .binary, at: second),
        ]
        let before = try await backgroundContext(coordinator).perform { context in
            let tags = try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")]))
            let labels = tags.map(\.label)
            tags[0].label = "first 0 changed"
            tags[3].label = "second 0 changed"
            context.delete(tags[1])
            context.delete(tags[4])
            let new = try Tag(context: context)
            new.label = "new"
            try context.save()
            return labels
        }
        for store in stores { try await coordinator.removePersistentStore(store) }

        #expect(before == ["first 0", "first 1", "first 2", "second 0", "second 1", "second 2"])
        #expect(try await Self.labels(at: first) == ["first 0 changed", "first 2", "new"])
        #expect(try await Self.labels(at: second) == ["second 0 changed", "second 2"])
    }
}
