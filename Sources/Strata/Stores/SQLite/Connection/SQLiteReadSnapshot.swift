import Foundation

/// A read transaction held open on one connection: every read through it sees the database as
/// it was when the transaction began, whatever is committed after (SQLite's WAL mode lets
/// writers go on meanwhile). Ends, and gives its connection back, when the last reference goes.
package final class SQLiteReadSnapshot: Sendable {
    private let connection: ThreadLocked<SQLiteConnection?>
    private let pool: SQLiteConnectionPool

    /// Begins a read transaction on a connection from `pool` and reads once, which is what
    /// fixes the snapshot (a `BEGIN` alone takes no lock until the first read).
    package init(pool: SQLiteConnectionPool) throws {
        let connection = try pool.take()
        try connection.execute("BEGIN DEFERRED")
        do {
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        self.connection = ThreadLocked(connection)
        self.pool = pool
    }

    deinit {
        guard let connection = connection.withLock({ $0.take() }) else { return }
        try? connection.execute("ROLLBACK")
        pool.giveBack(connection)
    }

    /// Runs `body` with the snapshot's connection, one caller at a time.
    package func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            guard let connection else { throw SQLiteError(extendedCode: 21, message: "the snapshot was closed") }
            return try body(connection)
        }
    }
}

/// The SQLite store's snapshots are its pinned read transactions.
extension SQLiteReadSnapshot: IncrementalStoreSnapshot {}
