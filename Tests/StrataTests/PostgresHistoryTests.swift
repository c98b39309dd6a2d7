import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Persistent history on the PostgreSQL store where several servers write at once: numbers in
/// commit order (so a reader after a token misses no save), the tables as the store documents
/// them, and a server that does not record history once another one does. (What history records
/// of each save is `PersistentHistoryTests`, on every store type.)
@Suite(.enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
struct PostgresHistoryTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Note") {
            AttributeDescription("title", .string, preservesValueInHistoryOnDeletion: true)
            AttributeDescription("data", .binaryData, optional: true, preservesValueInHistoryOnDeletion: true)
            AttributeDescription("weight", .double, defaultValue: 0, preservesValueInHistoryOnDeletion: true)
        }
    }

    static func server(_ url: URL, history: Bool = true) async throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url, options: [PersistentStoreOption.persistentHistoryTracking: history])
        return coordinator
    }

    static func insertNote(_ title: String, into coordinator: PersistentStoreCoordinator, author: String? = nil) async throws -> ManagedObjectID {
        try await backgroundContext(coordinator).perform { context in
            context.transactionAuthor = author
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue(title, forKey: "title")
            try context.save()
            return note.objectID
        }
    }

    /// Three servers save at once while a fourth reads the history after its last token, again
    /// and again: it sees every save exactly once, in order. Numbers taken before the commit
    /// (a sequence) would let a save that commits late fall behind a reader's token.
    @Test func aReaderAfterItsTokenMissesNoSaveOfServersWritingAtOnce() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let servers = [try await Self.server(url), try await Self.server(url), try await Self.server(url)]
        let reader = try await Self.server(url)
        let savesPerServer = 25
        let total = servers.count * savesPerServer

        let seen = try await withThrowingTaskGroup(of: [PersistentHistoryTransaction].self) { group in
            for (index, server) in servers.enumerated() {
                group.addTask {
                    for save in 0..<savesPerServer { _ = try await Self.insertNote("\(index)-\(save)", into: server, author: "server \(index)") }
                    return []
                }
            }
            group.addTask {
                var token: PersistentHistoryToken?
                var seen: [PersistentHistoryTransaction] = []
                // Bounds a reader that would never catch up; generous, for a machine that runs
                // the whole suite at once (the saves took 117 s there once).
                let deadline = Date().addingTimeInterval(300)
                while seen.count < total, Date() < deadline {
                    let next = try await reader.execute(.fetchHistory(after: token)).transactions
                    seen += next
                    token = next.last?.token ?? token
                    if next.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
                }
                return seen
            }
            var all: [PersistentHistoryTransaction] = []
            for try await part in group { all += part }
            return all
        }
        let stored = try await reader.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(stored.count == total)
        #expect(seen.map(\.transactionNumber) == stored.map(\.transactionNumber), "the reader saw every save once, in order")
        #expect(stored.map(\.transactionNumber) == Array(1...Int64(total)))
        for index in servers.indices {
            #expect(stored.filter { $0.author == "server \(index)" }.count == savesPerServer)
        }
        let changeIDs = stored.flatMap { $0.changes.map(\.changeID) }
        #expect(changeIDs == changeIDs.sorted() && Set(changeIDs).count == total, "change keys in commit order, never twice")
    }

    /// The tables say what the documentation says, readable with SQL: the save's number, the
    /// author as given (however hostile), changed properties as `text[]`, tombstones as JSON
    /// that reads back exactly.
    @Test func theHistoryTablesReadWithSQLAndValuesComeBackExactly() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let coordinator = try await Self.server(url)
        let hostile = "Robert'); DROP TABLE \"ACHANGE\"; -- \\ \u{1F600}"
        let bytes = Data([0, 1, 0xfe, 0xff])
        let weight = 0.1 + 0.2
        let id = try await Self.insertNote("first", into: coordinator, author: hostile)
        try await backgroundContext(coordinator).perform { context in
            context.transactionAuthor = hostile
            let note = try context.existingObject(with: id)
            try note.setValue("renamed \"quoted\"", forKey: "title")
            try note.setValue(bytes, forKey: "data")
            try note.setValue(weight, forKey: "weight")
            try context.save()
            context.delete(note)
            try context.save()
        }
        let transactions = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(transactions.map(\.author) == [hostile, hostile, hostile])
        #expect(transactions[1].changes.first?.updatedProperties == ["title", "data", "weight"])
        let tombstone = try #require(transactions[2].changes.first?.tombstone)
        #expect(tombstone == ["title": .string("renamed \"quoted\""), "data": .binaryData(bytes), "weight": .double(weight)])

        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let rows = try await PostgresTestServer.rows(
            """
            SELECT t."Z_PK"::text, k."Z_MAX"::text, c."ZCOLUMNS"::text, c."ZTOMBSTONE"->>'title', t."ZAUTHOR"
            FROM "\(schema)"."ATRANSACTION" t JOIN "\(schema)"."ACHANGE" c ON c."ZTRANSACTIONID" = t."Z_PK"
                JOIN "\(schema)"."Z_PRIMARYKEY" k ON k."Z_ENT" = 16002
            ORDER BY t."Z_PK"
            """)
        #expect(rows.map { $0[0] } == ["1", "2", "3"])
        #expect(rows.allSatisfy { $0[1] == "3" })
        #expect(rows.map { $0[2] } == [nil, "{data,title,weight}", nil])
        #expect(rows.map { $0[3] } == [nil, nil, "renamed \"quoted\""])
        #expect(rows.allSatisfy { $0[4] == hostile })
    }

    /// A server that added the store before another one turned history on has no history to
    /// record: its next save fails and writes nothing (it would go missing from the history),
    /// and it opens read-only from then on, as Core Data opens such a store.
    @Test func aServerWithoutHistoryStopsSavingOnceAnotherRecordsIt() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let plain = try await Self.server(url, history: false)
        _ = try await Self.insertNote("before history", into: plain)
        let tracking = try await Self.server(url)
        _ = try await Self.insertNote("recorded", into: tracking)

        let refused = await #expect(throws: PersistenceError.self) { _ = try await Self.insertNote("lost", into: plain) }
        #expect(refused?.code == .readOnlyStore)
        #expect(plain.persistentStores[0].isReadOnly)
        let titles = try await backgroundContext(tracking).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { try $0.value(forKey: "title") as? String }
        }
        #expect(Set(titles) == ["before history", "recorded"])
        let history = try await tracking.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(history.map(\.transactionNumber) == [1], "the first save, before history, has no transaction")
        #expect(try tracking.currentPersistentHistoryToken()?.transactionNumbers.values.first == 1)

        let reopened = try await Self.server(url, history: false)
        #expect(reopened.persistentStores[0].readOnlyReason != nil)
    }
}
