import Foundation
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// The PostgreSQL store keeps text indexes in byte order (`COLLATE "C"`, Core Data's `COLLATE
/// BINARY`) and compares text in it, equality too: an index in one collation serves no
/// comparison in another, so a lookup by an indexed string must compare in byte order to use
/// it (equal in byte order exactly when equal in any deterministic collation, so no result
/// changes). A store whose indexes are in another collation has them rebuilt when added.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresTextIndexTests {
    static func coordinator(_ url: URL) async throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try IndexTests.model())
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        return coordinator
    }

    static func schema(of url: URL) throws -> String {
        try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
    }

    /// `(name, definition)` of each index on `ZCODE` in `schema`.
    static func codeIndexes(in schema: String) async throws -> [(String, String)] {
        try await PostgresTestServer.rows(
            "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(schema)'"
        ).compactMap { row in row[1].flatMap { $0.contains("ZCODE") ? (row[0] ?? "", $0) : nil } }
    }

    @Test func aLookupByAnIndexedStringUsesTheIndex() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let coordinator = try await Self.coordinator(url)
        let schema = try Self.schema(of: url)
        try await backgroundContext(coordinator).perform { context in
            for number in 0..<3_000 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("code \(number)", forKey: "code")
                try item.setValue(Int32(number % 50), forKey: "rank")
            }
            try context.save()  // 3,000 rows: analyzed after the commit
        }
        let found = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: try FetchPredicate(format: "code == %@", "code 7"))).count
        }
        #expect(found == 1)
        // The condition the store reads by, planned by the server with the value written in.
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        let table = try #require(store.mapping.entities["Item"])
        for format in ["code == %@", "code IN %@", "code != %@"] {
            let argument: Any = format.contains("IN") ? ["code 7", "code 8"] : "code 7"
            let condition = try #require(
                SQLFetchCondition.exact(try FetchPredicate(format: format, argument), for: table, in: store.mapping, store: store.identifier, dialect: store.dialect))
            var sql = condition.fragment.sql(in: store.dialect, firstParameter: 1)
            for (position, value) in condition.fragment.bindings.enumerated().reversed() {
                guard case .text(let text) = value else { continue }
                sql = sql.replacingOccurrences(of: "$\(position + 1)", with: "'\(text)'")
            }
            #expect(sql.contains("COLLATE \"C\""), "\(sql)")
            guard format != "code != %@" else { continue }  // most rows: a scan is right
            let plan = try await PostgresTestServer.rows("EXPLAIN SELECT t.\"Z_PK\" FROM \"\(schema)\".\"ZITEM\" t WHERE \(sql)")
            #expect(plan.contains { $0[0]?.contains("Index") == true }, "\(format): \(plan)")
        }
    }

    /// Core Data's schema gives a fetch index of one attribute two indexes (the fetch index's
    /// name and the attribute's: `coredata-sqlite-schema.md` §6), which the SQLite store keeps
    /// for Core Data's readers; the PostgreSQL store makes one of each definition, so an insert
    /// writes one index per column, not two.
    @Test func oneIndexPerDefinition() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        _ = try await Self.coordinator(url)
        let schema = try Self.schema(of: url)
        let definitions = try await PostgresTestServer.rows(
            "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(schema)' AND i.indrelid = '\"\(schema)\".\"ZITEM\"'::regclass"
        ).compactMap { $0[0] }
        let columns = definitions.map { definition in definition.drop { $0 != "(" } }
        #expect(Set(columns).count == columns.count, "\(definitions)")
        #expect(columns.filter { $0.contains("ZCODE") }.count == 1, "\(definitions)")
        #expect(columns.filter { $0.contains("ZRANK") }.count == 1, "\(definitions)")
    }

    @Test func indexesInAnotherCollationAreRebuiltWhenTheStoreIsAdded() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let first = try await Self.coordinator(url)
        try await backgroundContext(first).perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("only", forKey: "code")
            try item.setValue(Int32(1), forKey: "rank")
            try context.save()
        }
        let schema = try Self.schema(of: url)
        // As a store made before text indexes were in byte order had it.
        for (name, _) in try await Self.codeIndexes(in: schema) {
            try await PostgresTestServer.execute("DROP INDEX \"\(schema)\".\"\(name)\"")
            try await PostgresTestServer.execute("CREATE INDEX \"\(name)\" ON \"\(schema)\".\"ZITEM\" (\"ZCODE\" COLLATE \"default\")")
        }
        #expect(try await Self.codeIndexes(in: schema).allSatisfy { !$0.1.contains("COLLATE \"C\"") })
        _ = try await Self.coordinator(url)
        let rebuilt = try await Self.codeIndexes(in: schema)
        #expect(!rebuilt.isEmpty)
        for (name, definition) in rebuilt { #expect(definition.contains("COLLATE \"C\""), "\(name): \(definition)") }
    }
}
