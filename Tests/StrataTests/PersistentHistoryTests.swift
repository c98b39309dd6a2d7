import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Persistent history on every store type: what saves record, reading it after a token or a
/// date, deleting it; on the SQLite store, in Core Data's tables, and the history Core Data wrote
/// into a real store.
@Suite struct PersistentHistoryTests {
    static let tracking: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]
    static let kinds: [StoreType] = [.sqlite, .binary, .inMemory] + (PostgresTestServer.isAvailable ? [.postgreSQL] : [])
    /// The stores that outlive their coordinator.
    static let fileKinds: [StoreType] = [.sqlite, .binary] + (PostgresTestServer.isAvailable ? [.postgreSQL] : [])

    /// A new store's URL: a file named `name` in `directory`, or a schema of its own on the test server.
    static func storeURL(_ name: String, in directory: URL, _ type: StoreType) async throws -> URL {
        type == .postgreSQL ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent(name)
    }

    /// A model whose `Note` keeps its title after deletion, with a to-one and a to-many.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Folder") {
                AttributeDescription("name", .string)
                RelationshipDescription("notes", toMany: "Note", inverse: "folder")
            }
            EntityDescription("Note") {
                AttributeDescription("title", .string, preservesValueInHistoryOnDeletion: true)
                AttributeDescription("body", .string, optional: true)
                AttributeDescription("stars", .integer16, defaultValue: 0, preservesValueInHistoryOnDeletion: true)
                RelationshipDescription("folder", toOne: "Folder", inverse: "notes")
            }
        }
    }

    static func open(
        _ url: URL, _ type: StoreType = .sqlite, options: [String: any Sendable] = tracking
    ) async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try await coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : url, options: options)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator, author: String?, name: String? = nil) async throws -> ManagedObjectContext {
        let context = backgroundContext(coordinator)
        try await context.perform { context in
            context.transactionAuthor = author
            context.name = name
        }
        return context
    }

    /// Three saves: two notes in a folder, a changed title, a deleted note.
    static func writeThreeSaves(_ coordinator: PersistentStoreCoordinator) async throws -> (first: ManagedObjectID, second: ManagedObjectID) {
        let context = try await context(coordinator, author: "app", name: "editor")
        let ids = try await context.perform { context in
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            var notes: [ManagedObject] = []
            for title in ["first", "second"] {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(title, forKey: "title")
                try note.setValue(Int16(title.count), forKey: "stars")
                try note.setValue(folder, forKey: "folder")
                notes.append(note)
            }
            try context.save()
            return (notes[0].objectID, notes[1].objectID)
        }
        let sync = try await Self.context(coordinator, author: "sync")
        try await sync.perform { context in
            try context.existingObject(with: ids.0).setValue("first, renamed", forKey: "title")
            try context.save()
        }
        try await context.perform { context in
            context.delete(try context.existingObject(with: ids.1))
            try context.save()
        }
        return ids
    }

    /// Core Data records, for each update, the properties the save changed
    /// (`NSPersistentHistoryChange.updatedProperties`). When the saving context no longer holds
    /// the row an update started from, a store that records history in its own tables compares
    /// with its row as it is now, at the version the context read; an update that started from
    /// another version is left out (its save fails on the conflict).
    @Test(arguments: [StoreType.sqlite] + (PostgresTestServer.isAvailable ? [.postgreSQL] : []))
    func anUpdateWithoutTheRowItReadIsComparedWithTheStoredRow(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try await Self.open(try await Self.storeURL("Notes.store", in: directory, type), type)
        let (first, _) = try await Self.writeThreeSaves(coordinator)
        let store = try #require(coordinator.persistentStores.first as? any RowSavingStore)
        let layout = try #require(coordinator.managedObjectModel.layout(for: "Note"))
        guard case .attribute(let title)? = layout.slots["title"], case .attribute(let body)? = layout.slots["body"] else {
            Issue.record("Note has no title or body slot")
            return
        }
        let stored = try #require(try store.row(forObject: first, layout: layout, in: CurrentStateSnapshot()))
        #expect(stored.attributes[title] == .string("first, renamed"), "the row as the last save left it")

        var changed = stored
        changed.attributes[title] = .string("first, again")
        changed.attributes[body] = .string("a body")
        var changes = ChangeSet()
        changes.updated[first] = changed
        let history = try SaveHistory(changes, store: store, model: coordinator.managedObjectModel)
        #expect(history.updatedProperties[first] == ["title", "body"])

        changed.version = stored.version - 1
        changes.updated[first] = changed
        let stale = try SaveHistory(changes, store: store, model: coordinator.managedObjectModel)
        #expect(stale.updatedProperties[first] == nil, "an update from another version is not compared")
    }

    @Test(arguments: kinds)
    func eachSaveRecordsATransactionWithItsChanges(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.storeURL("Notes.store", in: directory, type)
        let coordinator = try await Self.open(url, type)
        let (first, second) = try await Self.writeThreeSaves(coordinator)

        let transactions = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        try #require(transactions.count == 3)
        #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
        #expect(transactions.map(\.author) == ["app", "sync", "app"])
        #expect(transactions.map(\.contextName) == ["editor", nil, "editor"])
        #expect(transactions.allSatisfy { $0.processID == ProcessInfo.processInfo.processName })
        #expect(transactions.allSatisfy { $0.storeID == coordinator.persistentStores[0].identifier })
        #expect(transactions.map(\.timestamp) == transactions.map(\.timestamp).sorted())

        let inserts = transactions[0].changes
        #expect(inserts.count == 3)
        #expect(inserts.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })
        #expect(Set(inserts.map(\.changedObjectID.entityName)) == ["Folder", "Note"])
        #expect(inserts.map(\.changeID) == [1, 2, 3])

        let update = try #require(transactions[1].changes.first)
        #expect(transactions[1].changes.count == 1)
        #expect(update.changeType == .update && update.changedObjectID == first)
        #expect(update.updatedProperties == ["title"])

        let delete = try #require(transactions[2].changes.first { $0.changedObjectID == second })
        #expect(delete.changeType == .delete)
        #expect(delete.tombstone == ["title": .string("second"), "stars": .integer16(6)])
        // The folder lost a note: its to-many changed, which history records on the folder.
        let folderChange = try #require(transactions[2].changes.first { $0.changedObjectID.entityName == "Folder" })
        #expect(folderChange.changeType == .update && folderChange.updatedProperties == ["notes"])

        let later = try await coordinator.execute(.fetchHistory(after: transactions[0])).transactions
        #expect(later.map(\.transactionNumber) == [2, 3])
        var others = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        others.authors = .excluding("app")
        #expect(try await coordinator.execute(others).transactions.map(\.transactionNumber) == [2])
        others.authors = .only("app")
        #expect(try await coordinator.execute(others).transactions.map(\.transactionNumber) == [1, 3])
        let afterDate = try await coordinator.execute(.fetchHistory(after: transactions[0].timestamp)).transactions
        #expect(afterDate.allSatisfy { $0.timestamp > transactions[0].timestamp })
    }

    /// What a save records is in Core Data's tables, as §1–§7 of the format page lay them out.
    @Test func historyIsWrittenInCoreDataTables() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Notes.sqlite")
        let coordinator = try await Self.open(url)
        _ = try await Self.writeThreeSaves(coordinator)
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: .seconds(5))
        func rows(_ sql: String) throws -> [[SQLValue]] {
            var rows: [[SQLValue]] = []
            try connection.statement(sql).forEachRow { row in rows.append((0..<row.columnCount).map { row.value($0) }) }
            return rows
        }
        #expect(try rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT") == [
            [.integer(16001), .text("CHANGE"), .integer(0), .integer(6)],
            [.integer(16002), .text("TRANSACTION"), .integer(0), .integer(3)],
            [.integer(16003), .text("TRANSACTIONSTRING"), .integer(0), .integer(4)],
        ])
        #expect(try rows("SELECT ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK").map { $0[0] } == [
            .text("app"), .text("editor"), .text(ProcessInfo.processInfo.processName), .text("sync"),
        ])
        #expect(try rows("SELECT Z_ENT, Z_OPT, ZAUTHORTS, ZCONTEXTNAMETS, ZAUTHOR FROM ATRANSACTION ORDER BY Z_PK") == [
            [.integer(16002), .null, .integer(1), .integer(2), .null],
            [.integer(16002), .null, .integer(4), .null, .null],
            [.integer(16002), .null, .integer(1), .integer(2), .null],
        ])
        // Note's slots (§4): the to-one `folder`, then the attributes body, stars, title.
        let update = try rows("SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2")
        #expect(update == [[.integer(1), .integer(2), .integer(1), .integer(2), .blob(Data([0b0001_0000]))]])
        let tombstone = try rows("SELECT ZTOMBSTONE0, ZTOMBSTONE1 FROM ACHANGE WHERE ZCHANGETYPE = 2")
        #expect(tombstone == [[.text("second"), .integer(6)]])
        // Created exactly as Core Data creates them.
        let created = try rows("SELECT sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name")
        let expected = CoreDataHistorySchema.createStatements(tombstones: 2).sorted()
        #expect(created.map { $0[0] }.compactMap { if case .text(let sql) = $0 { sql } else { nil } }.sorted() == expected)
    }

    @Test(arguments: fileKinds)
    func tokensSurviveRestartsAndExpireWhenTheirHistoryIsDeleted(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.storeURL("Notes.store", in: directory, type)
        var coordinator = try await Self.open(url, type)
        _ = try await Self.writeThreeSaves(coordinator)
        let all = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        let saved = try JSONEncoder().encode(all[0].token)
        let current = try #require(try coordinator.currentPersistentHistoryToken())
        #expect(current == PersistentHistoryToken(storeIdentifier: all[0].storeID, transactionNumber: 3))
        #expect(all[0].token < all[1].token && all[1].token < current)

        try await coordinator.removePersistentStore(coordinator.persistentStores[0])
        coordinator = try await Self.open(url, type)
        let token = try JSONDecoder().decode(PersistentHistoryToken.self, from: saved)
        #expect(try await coordinator.execute(.fetchHistory(after: token)).transactions.map(\.transactionNumber) == [2, 3])
        #expect(try await coordinator.execute(.fetchHistory(after: current)).transactions.isEmpty)

        // Deleting before transaction 2's token keeps it: reading after transaction 1 still works.
        #expect(try await coordinator.execute(.deleteHistory(before: all[1].token)) == .deleted(count: 1))
        #expect(try await coordinator.execute(.fetchHistory(after: token)).transactions.map(\.transactionNumber) == [2, 3])
        #expect(try await coordinator.execute(.deleteHistory(before: all[2].token)) == .deleted(count: 1))
        await #expect {
            try await coordinator.execute(.fetchHistory(after: token))
        } throws: { ($0 as? PersistenceError)?.code == .historyTokenExpired }
        let left = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(left.map(\.transactionNumber) == [3])
        #expect(left[0].changes.count == 2, "a transaction's changes go with it, no other's")
        #expect(try await coordinator.execute(.deleteHistory(before: nil as PersistentHistoryToken?)) == .deleted(count: 1))
        #expect(try coordinator.currentPersistentHistoryToken() == current, "numbers are never reused")

        // Deleting is durable, and the numbers go on after the last one ever handed out.
        try await coordinator.removePersistentStore(coordinator.persistentStores[0])
        coordinator = try await Self.open(url, type)
        #expect(try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.isEmpty)
        try await backgroundContext(coordinator).perform { context in
            try context.insertNewObject(forEntityName: "Folder").setValue("Later", forKey: "name")
            try context.save()
        }
        let next = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(next.map(\.transactionNumber) == [4])
        #expect(next.first?.changes.map(\.changeID) == [7])
    }

    @Test(arguments: kinds)
    func aTokenOfAnotherStoreIsRefused(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let one = try await Self.open(Self.storeURL("One.store", in: directory, type), type)
        let other = try await Self.open(Self.storeURL("Other.store", in: directory, type), type)
        _ = try await Self.writeThreeSaves(other)
        let foreign = try #require(try other.currentPersistentHistoryToken())
        await #expect {
            try await one.execute(.fetchHistory(after: foreign))
        } throws: { ($0 as? PersistenceError)?.code == .invalidHistoryToken }
        await #expect {
            try await one.execute(.deleteHistory(before: foreign))
        } throws: { ($0 as? PersistenceError)?.code == .invalidHistoryToken }
    }

    /// Core Data's `deleteHistory(before: Date)`: the transactions older than the date go, with
    /// their changes; the one at the date and later stay.
    @Test(arguments: fileKinds)
    func historyIsDeletedBeforeADate(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.storeURL("Notes.store", in: directory, type)
        let coordinator = try await Self.open(url, type)
        _ = try await Self.writeThreeSaves(coordinator)
        let all = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        try #require(all.count == 3)
        #expect(try await coordinator.execute(.deleteHistory(before: all[0].timestamp)) == .deleted(count: 0))
        let cut = all[2].timestamp > all[1].timestamp ? all[2].timestamp : all[1].timestamp
        let removed = all.filter { $0.timestamp < cut }.count
        #expect(removed >= 1)
        #expect(try await coordinator.execute(.deleteHistory(before: cut)) == .deleted(count: removed))
        let left = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(left.map(\.transactionNumber) == all.dropFirst(removed).map(\.transactionNumber))
        #expect(left.map(\.changes.count) == all.dropFirst(removed).map(\.changes.count), "each transaction keeps its own changes")
    }

    @Test(arguments: fileKinds)
    func aStoreWithHistoryOpenedWithoutTrackingIsReadOnly(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.storeURL("Notes.store", in: directory, type)
        let tracked = try await Self.open(url, type)
        _ = try await Self.writeThreeSaves(tracked)
        try await tracked.removePersistentStore(tracked.persistentStores[0])

        let untracked = try await Self.open(url, type, options: [:])
        let store = untracked.persistentStores[0]
        #expect(store.isReadOnly && store.readOnlyReason != nil)
        await #expect {
            try await backgroundContext(untracked).perform { context in
                let folder = try context.insertNewObject(forEntityName: "Folder")
                try folder.setValue("Lost", forKey: "name")
                try context.save()
            }
        } throws: { error in
            (error as? PersistenceError).map { $0.code == .noPersistentStore || $0.code == .readOnlyStore } ?? false
        }
        await #expect {
            try await untracked.execute(.fetchHistory(after: nil as PersistentHistoryToken?))
        } throws: { ($0 as? PersistenceError)?.code == .unsupportedRequest }
        // Objects still read.
        let count = try await backgroundContext(untracked).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Note")) }
        #expect(count == 1)
    }

    /// Core Data's own history, in a store it wrote: one transaction of every object it inserted.
    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores))
    func historyCoreDataWroteReadsAndGoesOn() async throws {
        let url = try CoreDataStoreReader.copied(Fixtures.sharedSQLiteStores.appendingPathComponent(CoreDataStoreReadingTests.cachedOnly))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try SQLiteStore.cachedModel(ofStoreAt: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.tracking)
        let transactions = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        try #require(transactions.count == 1)
        let written = transactions[0]
        #expect(written.bundleID == "com.apple.dt.xctest.tool" && written.processID == "xctest")
        #expect(written.author == nil && written.contextName == nil)
        #expect(written.changes.count == 5_468 && written.changes.allSatisfy { $0.changeType == .insert })
        // Every change names an object the store holds, by its own entity.
        let ids = Set(written.changes.map(\.changedObjectID))
        #expect(ids.count == 5_468)
        let found = try await backgroundContext(coordinator).perform { context in
            var found = 0
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                found += try context.fetch(request).filter { ids.contains($0.objectID) }.count
            }
            return found
        }
        #expect(found == 5_468)

        let changed = try #require(ids.first { $0.entityName == "Page" })
        let context = try await Self.context(coordinator, author: "strata")
        try await context.perform { context in
            try context.existingObject(with: changed).setValue(Int32(9_999), forKey: "number")
            try context.save()
        }
        let next = try await coordinator.execute(.fetchHistory(after: written)).transactions
        #expect(next.map(\.transactionNumber) == [2])
        #expect(next.first?.author == "strata")
        #expect(next.first?.changes.map(\.changeID) == [5_469])
        #expect(next.first?.changes.first?.updatedProperties == ["number"])
    }

    @Test func aCoordinatorWithoutHistoryRefusesHistoryRequests() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        #expect(try coordinator.currentPersistentHistoryToken() == nil)
        await #expect {
            try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?))
        } throws: { ($0 as? PersistenceError)?.code == .unsupportedRequest }
    }

    @Test func tokensOrderByTransactionNumberWithinAStore() throws {
        let a = PersistentHistoryToken(storeIdentifier: "S", transactionNumber: 2)
        let b = PersistentHistoryToken(storeIdentifier: "S", transactionNumber: 10)
        #expect(a < b && !(b < a) && a != b)
        let both = PersistentHistoryToken(transactionNumbers: ["S": 2, "T": 1])
        let later = PersistentHistoryToken(transactionNumbers: ["S": 2, "T": 5])
        #expect(both < later)
        let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: JSONEncoder().encode(later))
        #expect(decoded == later)
    }

    /// A binary store that records history is written in format version 2, one that does not
    /// stays at version 1; a damaged history record is a typed error, not a crash.
    @Test func theBinaryFileKeepsHistoryInVersionTwo() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tracked = directory.appendingPathComponent("Tracked.store")
        let plain = directory.appendingPathComponent("Plain.store")
        let coordinator = try await Self.open(tracked, .binary)
        _ = try await Self.writeThreeSaves(coordinator)
        try await coordinator.removePersistentStore(coordinator.persistentStores[0])
        let untracked = try await Self.open(plain, .binary, options: [:])
        _ = try await Self.writeThreeSaves(untracked)
        try await untracked.removePersistentStore(untracked.persistentStores[0])
        #expect(try BinaryStoreFile(contentsOf: tracked).formatVersion == 2)
        #expect(try BinaryStoreFile(contentsOf: plain).formatVersion == 1)

        // The last record before the end record is the history's: damage a byte inside its frame.
        var bytes = try Data(contentsOf: tracked)
        var offsets: [Int] = []
        var offset = 16
        while offset + 4 <= bytes.count {
            offsets.append(offset)
            let length = bytes[offset..<offset + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            offset += 4 + length
        }
        let history = offsets[offsets.count - 2]
        bytes[history + 4 + 12] ^= 0xFF
        try bytes.write(to: tracked)
        await #expect {
            try await Self.open(tracked, .binary)
        } throws: { ($0 as? StoreError)?.code == .corruptFile }
    }
}
