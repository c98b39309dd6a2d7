import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// A generation's SQLite snapshot is a read transaction, and the coordinator keeps its latest
/// generation between reads. Once no context has held the generation for a moment, the
/// snapshot ends its transaction (`SQLiteReadSnapshot`, `IdleRelease`): a read transaction kept
/// open keeps every other connection's checkpoint from restarting the write-ahead log (another
/// process's, `sqlite3`'s), where Core Data holds none between an unpinned context's reads. A
/// pinned context keeps its generation's (Core Data's query generations).
@Suite struct SQLiteIdleSnapshotTests {
    /// What `PRAGMA wal_checkpoint(TRUNCATE)` on a connection of its own answers: whether a
    /// reader kept it from starting the log over (SQLite's `busy`), and the log's bytes after.
    static func truncatingCheckpoint(of url: URL) throws -> (busy: Bool, logBytes: Int) {
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: .milliseconds(50))
        var busy: Int64 = -1
        try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)").forEachRow { busy = $0.int64(0) }
        let size = try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int
        return (busy != 0, size ?? -1)
    }

    static func store(of coordinator: PersistentStoreCoordinator, lettingGoAfter seconds: Double) throws -> SQLiteStore {
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        store.snapshotIdleTime.withLock { $0 = seconds }
        return store
    }

    @Test func anIdleGenerationLetsAnotherConnectionStartTheLogOver() async throws {
        let url = try SQLiteLogRestartTests.newStoreURL()
        let coordinator = try await SQLiteLogRestartTests.coordinator(at: url)
        // Long enough to look at the transaction between reads, however slow the machine.
        let store = try Self.store(of: coordinator, lettingGoAfter: 600)
        let context = backgroundContext(coordinator)
        try await SQLiteLogRestartTests.saveTags(10, in: context)
        #expect(try await context.perform { try $0.count(for: FetchRequest<Tag>()) } == 10)
        #expect(try Self.truncatingCheckpoint(of: url).busy, "the generation's read transaction keeps the log")

        store.snapshotIdleTime.withLock { $0 = 0.2 }
        #expect(try await context.perform { try $0.count(for: FetchRequest<Tag>()) } == 10)
        #expect(
            try await eventually(within: 30) { try Self.truncatingCheckpoint(of: url) == (busy: false, logBytes: 0) },
            "a moment after the last read, another connection starts the log over")
        #expect(try await context.perform { try $0.count(for: FetchRequest<Tag>()) } == 10, "the next read takes a new snapshot")
        try await SQLiteLogRestartTests.saveTags(1, from: 10, in: context)
        #expect(
            try await eventually(within: 30) { try Self.truncatingCheckpoint(of: url) == (busy: false, logBytes: 0) },
            "a context that saved and went idle holds no read transaction either")
        #expect(try await context.perform { try $0.count(for: FetchRequest<Tag>()) } == 11)
    }

    @Test func theGenerationAStoreIsAddedWithEndsItsTransactionUnread() async throws {
        let url = try SQLiteLogRestartTests.newStoreURL()
        let coordinator = try await SQLiteLogRestartTests.coordinator(at: url)
        #expect(
            try await eventually(within: 30) { try Self.truncatingCheckpoint(of: url) == (busy: false, logBytes: 0) },
            "no context ever read it, and no context holds it")
        withExtendedLifetime(coordinator) {}
    }

    @Test func aPinnedGenerationKeepsItsReadTransactionWhileIdle() async throws {
        let url = try SQLiteLogRestartTests.newStoreURL()
        let coordinator = try await SQLiteLogRestartTests.coordinator(at: url)
        _ = try Self.store(of: coordinator, lettingGoAfter: 0.05)
        let writer = backgroundContext(coordinator)
        try await SQLiteLogRestartTests.saveTags(10, in: writer)
        let pinned = backgroundContext(coordinator)
        let before = try await pinned.perform { context in
            try context.setQueryGenerationFrom(.current)
            return try context.count(for: FetchRequest<Tag>())
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try Self.truncatingCheckpoint(of: url).busy, "a pinned context holds its generation's read transaction")
        try await SQLiteLogRestartTests.saveTags(5, from: 10, in: writer)
        try await Task.sleep(for: .milliseconds(300))
        #expect(before == 10)
        #expect(try await pinned.perform { try $0.count(for: FetchRequest<Tag>()) } == 10, "and reads its one state")
        try await pinned.perform { try $0.setQueryGenerationFrom(nil) }
        #expect(try await pinned.perform { try $0.count(for: FetchRequest<Tag>()) } == 15)
    }

    /// A read no context holds (a save's checks) may still reach a snapshot that let its
    /// transaction go: it reads on when nothing was committed since, and fails typed otherwise.
    @Test func aReadAfterTheReleaseBeginsAgainOnlyAtTheSameState() async throws {
        let url = try SQLiteLogRestartTests.newStoreURL()
        let setup = try SQLiteConnection(url: url, readOnly: false, create: true, busyTimeout: .seconds(1))
        try setup.execute("PRAGMA journal_mode = WAL")
        try setup.execute("CREATE TABLE t (x INTEGER)")
        try setup.execute("INSERT INTO t VALUES (1)")
        let pool = SQLiteConnectionPool(url: url, busyTimeout: .seconds(1))
        let unchanged = ThreadLocked(true)
        let snapshot = try SQLiteReadSnapshot(pool: pool, idleTime: ThreadLocked(0.05)) { unchanged.withLock { $0 } }
        func count() throws -> SQLValue? { try snapshot.read { try $0.scalar("SELECT count(*) FROM t") } }

        #expect(try count() == .integer(1))
        #expect(try await eventually(within: 30) { snapshot.isReleased }, "a read no context held lets go after it")
        #expect(try snapshot.renew(unless: { true }), "holding no transaction, it keeps no log from restarting")
        #expect(try count() == .integer(1), "nothing was written: a new transaction sees the same")
        #expect(!snapshot.isReleased)

        snapshot.contextsBeganHolding()
        try await Task.sleep(for: .milliseconds(200))
        #expect(!snapshot.isReleased, "a held snapshot keeps its transaction")
        snapshot.contextsStoppedHolding()
        #expect(try await eventually(within: 30) { snapshot.isReleased })
        try setup.execute("INSERT INTO t VALUES (2)")
        unchanged.withLock { $0 = false }
        let error = #expect(throws: PersistenceError.self) { try count() }
        #expect(error?.code == .unavailableGeneration)
    }
}
