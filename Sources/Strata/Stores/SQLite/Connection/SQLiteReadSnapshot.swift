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
        self.connection = ThreadLocked(try Self.beginRead(on: pool))
        self.pool = pool
    }

    deinit {
        guard let connection = connection.withLock({ $0.take() }) else { return }
        Self.endRead(on: connection, pool: pool)
    }

    /// A connection of `pool` in a read transaction that has read, so is pinned.
    private static func beginRead(on pool: SQLiteConnectionPool) throws -> SQLiteConnection {
        let connection = try pool.take()
        try connection.run("BEGIN DEFERRED")
        do {
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            try? connection.run("ROLLBACK")
            throw error
        }
        return connection
    }

    private static func endRead(on connection: SQLiteConnection, pool: SQLiteConnectionPool) {
        try? connection.run("ROLLBACK")
        pool.giveBack(connection)
    }

    /// Moves the snapshot to a read transaction begun now, unless `changed` (asked once the new
    /// one is pinned) says that something was committed since the caller knew the database to be
    /// as this snapshot sees it: the snapshot then sees the same database, from a transaction
    /// that began after the write-ahead log was last checkpointed, so does not keep the log from
    /// restarting. `false`, and the snapshot as it was, otherwise.
    package func renew(unless changed: () throws -> Bool) throws -> Bool {
        try connection.withLock { connection in
            guard let old = connection else { return false }
            let renewed = try Self.beginRead(on: pool)
            guard try !changed() else {
                Self.endRead(on: renewed, pool: pool)
                return false
            }
            Self.endRead(on: old, pool: pool)
            connection = renewed
            return true
        }
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
