import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`
/// (issue 33; Core Data's documentation: "Replaces one persistent store with another"): an app
/// restoring a backup, or starting from a store it ships, gets the source's objects at the
/// destination under the same IDs, on every store type; the destination is whole before and
/// after, and a file of another kind is never overwritten.
@Suite struct ReplaceStoreTests {
    static let kinds = DestroyStoreTests.kinds

    static func store(_ kind: StoreKind, in directory: URL, named name: String, tags: [String]) async throws -> URL {
        let url = kind == .postgres ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent("\(name).\(kind.rawValue)")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(type: kind.type, at: url)
        try await DestroyStoreTests.addTags(tags, to: coordinator)
        try await coordinator.removePersistentStore(store)
        return url
    }

    static func tags(at url: URL, _ kind: StoreKind) async throws -> (labels: [String], ids: [URL]) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(type: kind.type, at: url)
        let read = try await backgroundContext(coordinator).perform { context in
            let tags = try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")]))
            return (tags.map(\.label), tags.map { $0.objectID.uriRepresentation() })
        }
        // Let go before returning: a file store is locked while a coordinator has it.
        try await coordinator.removePersistentStore(store)
        return read
    }

    @Test(arguments: kinds)
    func theDestinationHoldsTheSourcesObjectsUnderTheirIDs(_ kind: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try await Self.store(kind, in: directory, named: "Backup", tags: ["kept", "saved"])
        let destination = try await Self.store(kind, in: directory, named: "Library", tags: ["lost"])
        let before = try await Self.tags(at: source, kind)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await coordinator.addPersistentStore(type: kind.type, at: destination)
        try await coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: kind.type)
        #expect(coordinator.persistentStores.isEmpty, "the replaced store left the coordinator")

        let after = try await Self.tags(at: destination, kind)
        #expect(after.labels == ["kept", "saved"])
        #expect(after.ids == before.ids, "the same objects: Core Data's replace copies the store")
        #expect(try await Self.tags(at: source, kind).labels == ["kept", "saved"], "the source is as it was")

        // A destination that is not there yet is made.
        let fresh = kind == .postgres ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent("New/Library.\(kind.rawValue)")
        try await coordinator.replacePersistentStore(at: fresh, withPersistentStoreFrom: source, type: kind.type)
        #expect(try await Self.tags(at: fresh, kind).labels == ["kept", "saved"])
    }

    @Test(arguments: [StoreKind.binary, .sqlite, .xml])
    func aForeignFileOrAMissingSourceChangesNothing(_ kind: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try await Self.store(kind, in: directory, named: "Backup", tags: ["kept"])
        let foreign = directory.appendingPathComponent("notes.\(kind.rawValue)")
        let text = Data("not a store, but somebody's notes\n".utf8)
        try text.write(to: foreign)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        await #expect(throws: StoreError.self) {
            try await coordinator.replacePersistentStore(at: foreign, withPersistentStoreFrom: source, type: kind.type)
        }
        #expect(try Data(contentsOf: foreign) == text, "left as it was")

        let destination = try await Self.store(kind, in: directory, named: "Library", tags: ["mine"])
        await #expect(throws: StoreError.self) {
            try await coordinator.replacePersistentStore(
                at: destination, withPersistentStoreFrom: directory.appendingPathComponent("missing.\(kind.rawValue)"), type: kind.type)
        }
        await #expect(throws: StoreError.self, "a source of another kind") {
            try await coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: foreign, type: kind.type)
        }
        #expect(try await Self.tags(at: destination, kind).labels == ["mine"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("strata-tmp") }
        #expect(leftovers.isEmpty)
    }

    /// A SQLite store's externally stored values come with it, and the destination's old ones go.
    @Test func externallyStoredValuesComeWithASQLiteStore() async throws {
        let (directory, source, file, id) = try await ExternalDataTests.storeWithExternalImage(writingFile: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("Restored.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ExternalDataTests.model())
        let first = try await coordinator.addPersistentStore(type: .sqlite, at: destination)
        try await coordinator.removePersistentStore(first)
        let stale = SQLiteStore.externalDataFile("0B0B0B0B-0000-4000-8000-000000000000", store: destination)
        try FileManager.default.createDirectory(at: stale.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([9]).write(to: stale)

        try await coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: stale.path), "the destination's own external values are gone")
        #expect(FileManager.default.fileExists(atPath: file.path), "the source's are still the source's")
        try await coordinator.addPersistentStore(type: .sqlite, at: destination)
        let image = try await backgroundContext(coordinator).perform { context in
            (try context.existingObject(with: id) as? ExternalDataTests.Photo)?.image
        }
        #expect(image == Data(repeating: 0xAB, count: 200_000))
    }

    /// Another coordinator that still has the SQLite store open reads the new content, never a
    /// file pulled from under it (the copy goes through SQLite, in one transaction).
    @Test func aCoordinatorStillHoldingTheSQLiteStoreReadsTheNewContent() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try await Self.store(.sqlite, in: directory, named: "Backup", tags: ["restored"])
        let destination = try await Self.store(.sqlite, in: directory, named: "Library", tags: ["old"])
        let holder = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await holder.addPersistentStore(type: .sqlite, at: destination)
        #expect(try await DestroyStoreTests.labels(in: holder) == ["old"])

        let other = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await other.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
        #expect(try await Self.tags(at: destination, .sqlite).labels == ["restored"])
        #expect(try await DestroyStoreTests.labels(in: holder) == ["restored"], "the holder's next read")
    }
}
