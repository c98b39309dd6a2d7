import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// `destroyPersistentStore(at:type:options:)` (issue 33; Core Data's documentation: "Deletes
/// (or truncates) the target persistent store in accordance with the store class's
/// requirements"): an app starting again from nothing gets an empty store at the same place,
/// on every store type; a file of another kind is never deleted by mistake.
@Suite struct DestroyStoreTests {
    static let kinds: [StoreKind] = [.binary, .sqlite, .xml] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    static func url(_ kind: StoreKind, in directory: URL) async throws -> URL {
        kind == .postgres ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent("Library.\(kind.rawValue)")
    }

    static func addTags(_ labels: [String], to coordinator: PersistentStoreCoordinator) async throws {
        try await backgroundContext(coordinator).perform { context in
            for label in labels { try Tag(context: context).label = label }
            try context.save()
        }
    }

    static func labels(in coordinator: PersistentStoreCoordinator) async throws -> [String] {
        try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).map(\.label)
        }
    }

    /// The store this coordinator has open is removed from it and destroyed; added again at
    /// the same place it is empty, and takes new saves.
    @Test(arguments: kinds)
    func aDestroyedStoreOpensEmptyAtTheSamePlace(_ kind: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.url(kind, in: directory)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await coordinator.addPersistentStore(type: kind.type, at: url)
        try await Self.addTags(["a", "b"], to: coordinator)

        try await coordinator.destroyPersistentStore(at: url, type: kind.type)
        #expect(coordinator.persistentStores.isEmpty, "the coordinator let the destroyed store go")

        let again = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await again.addPersistentStore(type: kind.type, at: url)
        #expect(try await Self.labels(in: again) == [])
        try await Self.addTags(["c"], to: again)
        #expect(try await Self.labels(in: again) == ["c"])
    }

    /// After a destroy, the store opens with Core Data's two migration options as a new store
    /// (nothing is left that reads as an older store to migrate).
    @Test(arguments: kinds)
    func aDestroyedStoreOpensWithMigrationOptions(_ kind: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.url(kind, in: directory)
        let first = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await first.addPersistentStore(type: kind.type, at: url)
        try await Self.addTags(["a"], to: first)
        try await first.removePersistentStore(store)

        // Another coordinator destroys it: the first no longer has it.
        try await PersistentStoreCoordinator(managedObjectModel: try libraryModel()).destroyPersistentStore(at: url, type: kind.type)
        let reopened = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await reopened.addPersistentStore(
            type: kind.type, at: url,
            options: [PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true])
        #expect(try await Self.labels(in: reopened) == [])
    }

    /// Nothing at the URL: nothing to do, no error (an app destroys before its first launch's
    /// store exists).
    @Test(arguments: kinds)
    func nothingThereIsNothingToDo(_ kind: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.url(kind, in: directory)
        try await PersistentStoreCoordinator(managedObjectModel: try libraryModel()).destroyPersistentStore(at: url, type: kind.type)
        if kind != .postgres { #expect(!FileManager.default.fileExists(atPath: url.path)) }
    }

    /// A file that is not a store of the type named is refused with a typed error and left
    /// byte for byte: destroying the wrong path loses nothing.
    @Test(arguments: [StoreKind.binary, .sqlite, .xml])
    func aForeignFileIsRefusedAndKept(_ kind: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("notes.\(kind.rawValue)")
        let bytes = Data("Dear diary, this is not a store. It matters to someone.\n".utf8)
        try bytes.write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        await #expect(throws: StoreError.self) { try await coordinator.destroyPersistentStore(at: url, type: kind.type) }
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// A SQLite store is emptied in place, as Core Data's is: its write-ahead log is emptied,
    /// its externally stored values' folder goes, and a connection still open on it (another
    /// process's) reads an empty database rather than a file pulled from under it.
    @Test func aSQLiteStoreIsEmptiedInPlaceWithItsExternalValues() async throws {
        let (directory, store, file, _) = try await ExternalDataTests.storeWithExternalImage(writingFile: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try SQLiteConnection(url: store, readOnly: true, create: false, busyTimeout: .seconds(5))
        #expect(try other.scalar("SELECT count(*) FROM ZPHOTO") == .integer(1))

        try await PersistentStoreCoordinator(managedObjectModel: try ExternalDataTests.model()).destroyPersistentStore(at: store, type: .sqlite)
        #expect(FileManager.default.fileExists(atPath: store.path), "truncated, not deleted")
        #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().deletingLastPathComponent().path))
        #expect(((try? FileManager.default.attributesOfItem(atPath: store.path + "-wal")[.size] as? Int) ?? 0) == 0)
        #expect(try other.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
    }
}
