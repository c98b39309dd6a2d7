import Foundation
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// A generation's snapshot on PostgreSQL is a `REPEATABLE READ` transaction (``PostgresSnapshot``).
/// These tests check what holding one costs the server and what happens when the server ends
/// it: a generation no context reads or pins gives its transaction back after a moment (an open
/// transaction holds back the cluster's `VACUUM` and counts as idle in transaction), a pinned one
/// keeps it (Core Data's query generations: one state for as long as the context is pinned), and
/// a generation whose transaction the server ended (`idle_in_transaction_session_timeout`, an
/// administrator) reads on when nothing was saved since, or says with a typed error that its
/// state is gone.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresIdleSnapshotTests {
    static let accounts = FetchRequest<ManagedObject>(entityName: "Account")

    /// The store of a coordinator `PostgresStoreTests.server` opened, letting go of idle
    /// snapshots after `seconds`.
    static func store(of coordinator: PersistentStoreCoordinator, lettingGoAfter seconds: Double) throws -> PostgresStore {
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        store.snapshotIdleTime.withLock { $0 = seconds }
        return store
    }

    /// How many of the store's connections are in a transaction that holds a snapshot and runs
    /// nothing: those whose last statement read the store's schema.
    static func idleTransactions(reading schema: String, database: String = "postgres") async throws -> Int {
        let rows = try await PostgresTestServer.rows(
            "SELECT count(*)::text FROM pg_stat_activity WHERE state = 'idle in transaction' AND backend_xmin IS NOT NULL "
                + "AND datname = '\(database)' AND position('\(Self.quoted(schema))' in query) > 0")
        return Int(rows.first?.first.flatMap { $0 }.flatMap { Int($0) } ?? -1)
    }

    /// The schema as the store's statements name it, quoted: `strata_t7_1` alone is also the
    /// start of `strata_t7_12`, another test's schema (whose sessions the test must not end).
    static func quoted(_ schema: String) -> String {
        "\"\(schema)\"."
    }

    static func schema(of url: URL) throws -> String {
        try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
    }

    @Test func aGenerationNoContextHoldsGivesItsTransactionBack() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let schema = try Self.schema(of: url)
        let coordinator = try await PostgresStoreTests.server(url, remote: false)
        // Long enough to look at the transaction between reads, however slow the machine.
        let store = try Self.store(of: coordinator, lettingGoAfter: 600)
        _ = try await PostgresStoreTests.open("ada@example.org", balance: 10, in: coordinator)
        let reader = backgroundContext(coordinator)
        #expect(try await reader.perform { try $0.count(for: Self.accounts) } == 1)
        // (The server reports a session idle a moment after the answer to its last statement.)
        #expect(
            try await eventually(within: 30) { try await Self.idleTransactions(reading: schema) == 1 },
            "the generation's snapshot holds its transaction between reads that follow")

        store.snapshotIdleTime.withLock { $0 = 0.2 }
        #expect(try await reader.perform { try $0.count(for: Self.accounts) } == 1)
        #expect(try await eventually(within: 30) { try await Self.idleTransactions(reading: schema) == 0 }, "a moment after its last read, it gives it back")
        #expect(try await reader.perform { try $0.count(for: Self.accounts) } == 1, "the next read takes a new snapshot")
        _ = try await PostgresStoreTests.open("grace@example.org", balance: 20, in: try await PostgresStoreTests.server(url, remote: false))
        #expect(
            try await eventually(within: 10) { try await reader.perform { try $0.count(for: Self.accounts) } == 2 },
            "and hears other servers' saves as before")
    }

    @Test func aPinnedGenerationKeepsItsTransactionWhileIdle() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let schema = try Self.schema(of: url)
        let coordinator = try await PostgresStoreTests.server(url, remote: false)
        _ = try Self.store(of: coordinator, lettingGoAfter: 0.1)
        _ = try await PostgresStoreTests.open("ada@example.org", balance: 10, in: coordinator)
        let pinned = backgroundContext(coordinator)
        let before = try await pinned.perform { context in
            try context.setQueryGenerationFrom(.current)
            return try context.count(for: Self.accounts)
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(
            try await eventually(within: 30) { try await Self.idleTransactions(reading: schema) == 1 },
            "a pinned context holds its generation's transaction")
        _ = try await PostgresStoreTests.open("grace@example.org", balance: 20, in: try await PostgresStoreTests.server(url, remote: false))
        try await Task.sleep(for: .milliseconds(500))
        #expect(before == 1)
        #expect(try await pinned.perform { try $0.count(for: Self.accounts) } == 1, "and reads its one state, whatever was saved since")
        try await pinned.perform { try $0.setQueryGenerationFrom(nil) }
        #expect(try await eventually(within: 30) { try await Self.idleTransactions(reading: schema) == 0 }, "unpinned, it lets go")
    }

    /// The server ends the sessions of the store's idle transactions, as it does past
    /// `idle_in_transaction_session_timeout` (there with SQLSTATE 25P03, here 57P01): a timeout
    /// would make the test depend on how loaded the machine is.
    static func endIdleTransactions(reading schema: String) async throws {
        try await PostgresTestServer.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' "
                + "AND datname = 'postgres' AND position('\(Self.quoted(schema))' in query) > 0")
        #expect(try await eventually(within: 30) { try await Self.idleTransactions(reading: schema) == 0 })
    }

    @Test func aGenerationReadsOnAfterTheServerEndsItsTransaction() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let schema = try Self.schema(of: url)
        let writer = try await PostgresStoreTests.server(url, remote: false)
        _ = try await PostgresStoreTests.open("ada@example.org", balance: 10, in: writer)
        let coordinator = try await PostgresStoreTests.server(url, remote: false)
        _ = try Self.store(of: coordinator, lettingGoAfter: 600)  // the server ends it first
        let pinned = backgroundContext(coordinator)
        let before = try await pinned.perform { context in
            try context.setQueryGenerationFrom(.current)
            return try context.count(for: Self.accounts)
        }
        #expect(before == 1)
        try await Self.endIdleTransactions(reading: schema)
        #expect(try await pinned.perform { try $0.count(for: Self.accounts) } == 1, "nothing was saved since: the same state, read again")

        _ = try await PostgresStoreTests.open("grace@example.org", balance: 20, in: writer)
        try await Self.endIdleTransactions(reading: schema)
        let lost = await #expect(throws: PersistenceError.self, "a save came between: the generation's state is gone, and the read says so") {
            try await pinned.perform { try $0.count(for: Self.accounts) }
        }
        #expect(lost?.code == .unavailableGeneration)
        #expect(
            try await eventually(within: 10) {
                try await pinned.perform { context in
                    try context.setQueryGenerationFrom(nil)
                    return try context.count(for: Self.accounts)
                } == 2
            }, "unpinned, the context reads the latest state")
    }
}
