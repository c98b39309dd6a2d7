import Foundation
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// PostgreSQL's advice for bulk loading ("Populating a Database": run `ANALYZE` afterwards):
/// a save that grows a table to at least twice what its planner statistics describe analyzes
/// it once committed (``PostgresStore/analyzeGrownTables(_:)``); a small save, or one the
/// statistics still describe, leaves them to autovacuum. `pg_class.reltuples` is what
/// `ANALYZE` sets (-1 for a table never analyzed).
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresStatisticsTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Reading") {
            AttributeDescription("sensor", .string)
            AttributeDescription("value", .double, defaultValue: 0)
        }
    }

    @Test func savesThatDoubleATableAnalyzeIt() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        // Autovacuum would analyze on its own round, a minute apart: off for this table, so that
        // what is seen is the store's doing.
        try await PostgresTestServer.execute("ALTER TABLE \"\(schema)\".\"ZREADING\" SET (autovacuum_enabled = false)")
        func counted() async throws -> Int {
            let rows = try await PostgresTestServer.rows(
                "SELECT c.reltuples::bigint::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE n.nspname = '\(schema)' AND c.relname = 'ZREADING'")
            return try #require(rows.first?.first.flatMap { $0 }.flatMap { Int($0) })
        }
        func insert(_ count: Int) async throws {
            try await backgroundContext(coordinator).perform { context in
                for number in 0..<count {
                    let reading = try context.insertNewObject(forEntityName: "Reading")
                    try reading.setValue("sensor \(number % 7)", forKey: "sensor")
                    try reading.setValue(Double(number), forKey: "value")
                }
                try context.save()
            }
        }
        try await insert(10)
        #expect(try await counted() == -1, "ten rows are left to autovacuum")
        try await insert(1_500)
        #expect(try await counted() == 1_510, "the first large save analyzes the table")
        try await insert(1_000)
        #expect(try await counted() == 1_510, "2,510 rows are less than twice the 1,510 the statistics know")
        try await insert(2_000)
        #expect(try await counted() == 4_510, "4,510 rows are more than twice")
    }
}
