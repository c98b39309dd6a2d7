import Foundation

/// A read transaction held open on one connection: every read through it sees the database as
/// it was when the transaction began, whatever is committed after (SQLite's WAL mode lets
/// writers go on meanwhile). Ends, and gives its connection back, when the last reference goes.
///
/// A generation's snapshot (``init(pool:idleTime:isUnchanged:)``) also ends its transaction once
/// no context has held the generation for `idleTime` (``IdleRelease``): a pinned read
/// transaction keeps other connections' checkpoints from restarting the write-ahead log (another
/// process's, `sqlite3`'s), and Core Data holds none between an unpinned context's reads. It
/// then says so (``isReleased``), and the coordinator's next reader takes a new snapshot. A read
/// that still comes through it begins a new transaction, and goes on if `isUnchanged` says
/// nothing was committed since the snapshot began; otherwise it throws
/// `PersistenceError.unavailableGeneration`.
package final class SQLiteReadSnapshot: Sendable {
    private struct State {
        var connection: SQLiteConnection?
        var isReleased = false
    }
    private let state: ThreadLocked<State>
    private let pool: SQLiteConnectionPool
    private let idleRelease: IdleRelease?
    private let isUnchanged: (@Sendable () throws -> Bool)?

    /// Begins a read transaction on a connection from `pool` and reads once, which is what
    /// fixes the snapshot (a `BEGIN` alone takes no lock until the first read). It lasts as long
    /// as the snapshot.
    package convenience init(pool: SQLiteConnectionPool) throws {
        try self.init(pool: pool, idleRelease: nil, isUnchanged: nil)
    }

    /// A generation's snapshot, which lets its transaction go once no context has held the
    /// generation for `idleTime` seconds; `isUnchanged` says whether the database is still as
    /// it was when the snapshot began.
    package convenience init(pool: SQLiteConnectionPool, idleTime: ThreadLocked<Double>, isUnchanged: @escaping @Sendable () throws -> Bool) throws {
        try self.init(pool: pool, idleRelease: IdleRelease(idleTime: idleTime), isUnchanged: isUnchanged)
        // Begun with a read no context held: it goes, as after any such read, unless one comes
        // to hold it (a generation no context ever reads, as the one a store is added with).
        idleRelease?.readEnded { [weak self] in self?.releaseIfIdle() }
    }

    private init(pool: SQLiteConnectionPool, idleRelease: IdleRelease?, isUnchanged: (@Sendable () throws -> Bool)?) throws {
        state = ThreadLocked(State(connection: try Self.beginRead(on: pool)))
        self.pool = pool
        self.idleRelease = idleRelease
        self.isUnchanged = isUnchanged
    }

    deinit {
        guard let connection = state.withLock({ $0.connection.take() }) else { return }
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
    /// restarting. `false`, and the snapshot as it was, otherwise. `true` at once for a snapshot
    /// that holds no transaction (let go while idle): it keeps nothing from restarting.
    package func renew(unless changed: () throws -> Bool) throws -> Bool {
        try state.withLock { state in
            guard let old = state.connection else { return true }
            let renewed = try Self.beginRead(on: pool)
            guard try !changed() else {
                Self.endRead(on: renewed, pool: pool)
                return false
            }
            Self.endRead(on: old, pool: pool)
            state.connection = renewed
            return true
        }
    }

    /// Runs `body` with the snapshot's connection, one caller at a time.
    package func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        defer { idleRelease?.readEnded { [weak self] in self?.releaseIfIdle() } }
        return try state.withLock { state in
            if state.connection == nil, state.isReleased { state.connection = try beginAgain() }
            guard let connection = state.connection else { throw SQLiteError(extendedCode: 21, message: "the snapshot was closed") }
            return try body(connection)
        }
    }

    /// A read transaction begun now, for a snapshot that let its own go: it sees what the
    /// snapshot saw if nothing was committed since.
    private func beginAgain() throws -> SQLiteConnection {
        let connection = try Self.beginRead(on: pool)
        guard try isUnchanged?() == true else {
            Self.endRead(on: connection, pool: pool)
            throw PersistenceError(
                .unavailableGeneration,
                "this generation's read transaction ended while no context held the generation, and the database was "
                    + "written since: its state cannot be read again; unpin or refresh the context")
        }
        return connection
    }

    /// Ends the transaction, unless a context holds the generation (reads hold the lock).
    private func releaseIfIdle() {
        let released = state.withLock { state -> SQLiteConnection? in
            guard idleRelease?.isHeld == false, let connection = state.connection else { return nil }
            state.connection = nil
            state.isReleased = true
            return connection
        }
        if let released { Self.endRead(on: released, pool: pool) }
    }
}

/// The SQLite store's snapshots are its pinned read transactions.
extension SQLiteReadSnapshot: IncrementalStoreSnapshot {
    package var isReleased: Bool {
        state.withLock { $0.isReleased && $0.connection == nil }
    }

    package func contextsBeganHolding() {
        idleRelease?.held()
    }

    package func contextsStoppedHolding() {
        idleRelease?.letGo { [weak self] in self?.releaseIfIdle() }
    }
}
