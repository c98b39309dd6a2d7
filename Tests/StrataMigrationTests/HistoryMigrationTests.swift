import Foundation
import Strata
import Testing

/// A store's persistent history through a migration (the SQLite and PostgreSQL stores' in place,
/// the binary store's by rewriting): it follows the entities (and on SQLite and PostgreSQL their
/// new numbers), is cut (as Core Data cuts it) when an entity it names goes, and keeps counting.
@Suite struct HistoryMigrationTests {
    /// Core Data's XML store records no history (Core Data records it in SQLite stores only).
    static let kinds = MigrationFixtures.storeKinds.filter { $0 != "xml" }

    static let tracking: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]

    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Folder") {
                AttributeDescription("name", .string)
                RelationshipDescription("notes", toMany: "Note", inverse: "folder")
            }
            EntityDescription("Note") {
                AttributeDescription("title", .string)
                RelationshipDescription("folder", toOne: "Folder", inverse: "notes")
            }
        }
    }

    /// Version 2 adds an entity that sorts first: Folder and Note are numbered 2 and 3, not 1 and 2.
    static func withArchive() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Archive") { AttributeDescription("year", .integer32, defaultValue: 0) }
            EntityDescription("Folder") {
                AttributeDescription("name", .string)
                RelationshipDescription("notes", toMany: "Note", inverse: "folder")
            }
            EntityDescription("Note") {
                AttributeDescription("title", .string)
                RelationshipDescription("folder", toOne: "Folder", inverse: "notes")
            }
        }
    }

    /// Version 2 without folders.
    static func withoutFolders() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") { AttributeDescription("title", .string) }
        }
    }

    static func save(_ url: URL, model: ManagedObjectModel, _ body: @escaping @Sendable (isolated ManagedObjectContext) throws -> Void) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: type(of: url), at: url, options: tracking)
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            try body(context)
            try context.save()
        }
        try await coordinator.removePersistentStore(store)
    }

    static func history(_ url: URL, model: ManagedObjectModel) async throws -> [PersistentHistoryTransaction] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: type(of: url), at: url, options: tracking)
        let transactions = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        try await coordinator.removePersistentStore(store)
        return transactions
    }

    static func type(of url: URL) -> StoreType { MigrationFixtures.storeType(of: url) }

    /// Two saves: a note alone, then a folder with a note.
    static func makeStore(at url: URL) async throws {
        try await save(url, model: try v1()) { context in
            try context.insertNewObject(forEntityName: "Note").setValue("alone", forKey: "title")
        }
        try await save(url, model: try v1()) { context in
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("filed", forKey: "title")
            try note.setValue(folder, forKey: "folder")
        }
    }

    static func migrate(_ url: URL, to destination: ManagedObjectModel) async throws {
        let bundle = try ModelBundle(name: "Notes", versions: [("v1", try v1()), ("v2", destination)])
        try await MigrationPlan(bundle: bundle).migrateStore(at: url, type: type(of: url))
    }

    @Test(arguments: kinds)
    func historyFollowsRenumberedEntitiesAndKeepsCounting(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        try await Self.makeStore(at: url)
        let before = try await Self.history(url, model: try Self.v1())
        try await Self.migrate(url, to: try Self.withArchive())

        let model = try Self.withArchive()
        let after = try await Self.history(url, model: model)
        #expect(after.map(\.transactionNumber) == [1, 2])
        #expect(after.map { $0.changes.map { $0.changedObjectID.uriRepresentation() } } == before.map { $0.changes.map { $0.changedObjectID.uriRepresentation() } })
        #expect(after[1].changes.map(\.changedObjectID.entityName).sorted() == ["Folder", "Note"])

        try await Self.save(url, model: model) { context in
            try context.insertNewObject(forEntityName: "Archive").setValue(Int32(2026), forKey: "year")
        }
        let next = try await Self.history(url, model: model)
        #expect(next.map(\.transactionNumber) == [1, 2, 3], "the counters survive the migration: no number is handed out twice")
        #expect(next.last?.changes.map(\.changeID) == [4])
    }

    @Test(arguments: kinds)
    func historyIsCutUpToTheLastTransactionOfAnEntityThatGoes(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        try await Self.makeStore(at: url)
        try await Self.save(url, model: try Self.v1()) { context in
            try context.insertNewObject(forEntityName: "Note").setValue("later", forKey: "title")
        }
        try await Self.migrate(url, to: try Self.withoutFolders())
        let after = try await Self.history(url, model: try Self.withoutFolders())
        #expect(after.map(\.transactionNumber) == [3], "transaction 2 touched a folder: it and everything before it go")
        #expect(after.first?.changes.map(\.changedObjectID.entityName) == ["Note"])
    }
}
