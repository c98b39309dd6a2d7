import Foundation
@testable import Strata
import Testing

/// The SQLite layer under the SQLite store: errors that name what went wrong, and read
/// snapshots that keep seeing the database as it was when they began.
@Suite struct SQLiteConnectionTests {
    @Test func aFileThatIsNotADatabaseIsRefusedAsNotAStore() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("notes.sqlite")
        try Data(repeating: 0x41, count: 8_192).write(to: url)
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: .seconds(1))
        let error = try #require(throws: SQLiteError.self) { try connection.execute("SELECT * FROM sqlite_master") }
        #expect(error.storeError(file: url).code == .notAStore)
        #expect(error.storeError(file: url).file == url.path)
    }

    @Test func aSnapshotDoesNotSeeLaterCommits() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        let writer = try SQLiteConnection(url: url, readOnly: false, create: true, busyTimeout: .seconds(1))
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE T (V INTEGER); INSERT INTO T VALUES (1)")
        let pool = SQLiteConnectionPool(url: url, busyTimeout: .seconds(1))
        let before = try SQLiteReadSnapshot(pool: pool)
        let watcher = try pool.take()
        let version = try watcher.dataVersion()

        try writer.writeTransaction { try writer.statement("INSERT INTO T VALUES (?)").run([.integer(2)]) }

        let countBefore = try before.read { try $0.scalar("SELECT count(*) FROM T") }
        let countAfter = try SQLiteReadSnapshot(pool: pool).read { try $0.scalar("SELECT count(*) FROM T") }
        #expect(countBefore == .integer(1))
        #expect(countAfter == .integer(2))
        #expect(try watcher.dataVersion() != version, "another connection's commit shows in data_version")
    }

    @Test func aFailedWriteTransactionLeavesNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        let writer = try SQLiteConnection(url: url, readOnly: false, create: true, busyTimeout: .seconds(1))
        try writer.execute("CREATE TABLE T (V INTEGER UNIQUE)")
        let error = try #require(throws: SQLiteError.self) {
            try writer.writeTransaction {
                try writer.statement("INSERT INTO T VALUES (?)").run([.integer(1)])
                try writer.statement("INSERT INTO T VALUES (?)").run([.integer(1)])
            }
        }
        #expect(error.isUniqueConstraint)
        #expect(error.storeError(file: url).code == .writeFailed, "a constraint's refusal is not called damage")
        #expect(writer.isAutocommit)
        #expect(try writer.scalar("SELECT count(*) FROM T") == .integer(0))
    }
}
