import Logging
import NIOCore
import PostgresNIO
import Strata

/// A generation's view of a PostgreSQL store: a `REPEATABLE READ` read-only transaction, begun
/// at the first read (a generation no context reads holds no connection), its snapshot exported
/// (`pg_export_snapshot`) so that contexts reading the generation at once each read on a
/// connection of their own, in a transaction that imported the same snapshot
/// (`SET TRANSACTION SNAPSHOT`). Every transaction is rolled back, its connection given back,
/// when the generation goes.
///
/// Reads through one snapshot see one state of the database however long they go on, and
/// whatever other servers commit meanwhile: Core Data's query generations, across machines.
///
/// An open transaction costs the server: it holds back `VACUUM` of every table in the cluster,
/// and a server with `idle_in_transaction_session_timeout` ends the session. So the snapshot lets
/// its transactions go once no context has held its generation for ``PostgresStore/snapshotIdleTime``
/// (a second, give or take the quarter second ``IdleRelease`` sweeps by: reads that follow one
/// another keep sharing it), and says so (``isReleased``), so
/// that the coordinator's next reader takes a new snapshot. A context pinned to the generation
/// (`setQueryGenerationFrom(.current)`) holds it, and its transaction, until it lets go.
///
/// A read that finds the snapshot's transactions gone — let go while no context held it and read
/// again by a save's checks, or ended by the server — begins a new one, and goes on if the store's
/// save number (`Z_CHANGE`, which every save and batch request takes in its transaction) is still
/// the snapshot's: then the new transaction sees the same state of the store. If a save came
/// between, the state is gone, and the read fails with `PersistenceError.unavailableGeneration`.
/// (Rows written by SQL of your own take no save number, and are not noticed.)
final class PostgresSnapshot: IncrementalStoreSnapshot {
    private let pool: PostgresConnectionPool
    private let logger: Logger
    /// `SELECT pg_export_snapshot(), (the store's Z_CHANGE)`: begins a state and says which.
    private let exportSQL: String
    /// When the transactions go once no context holds the generation.
    private let idleRelease: IdleRelease

    private struct State {
        /// The exported snapshot's name, and the connection whose transaction exported it,
        /// while that transaction is open (no other can import it after).
        var name: String?
        var exporter: PostgresConnection?
        /// The store's save number in the snapshot's state, once the first read began it.
        var change: Int64?
        /// Every connection with a transaction of the snapshot, and those of them no read is
        /// using.
        var connections: [PostgresConnection] = []
        var idle: [PostgresConnection] = []
        /// Whether the transactions were let go while no context held the generation.
        var isReleased = false
    }
    private let state = ThreadLocked(State())

    init(pool: PostgresConnectionPool, changeTable: String, idleTime: ThreadLocked<Double>, logger: Logger) {
        self.pool = pool
        self.logger = logger
        idleRelease = IdleRelease(idleTime: idleTime)
        exportSQL = "SELECT pg_export_snapshot(), (SELECT \"Z_CHANGE\" FROM \(changeTable))"
    }

    deinit {
        // Not waited for: the last reference may go on any thread.
        for connection in state.withLock({ $0.connections }) { Self.rollBack(connection, pool: pool, logger: logger) }
    }

    /// Runs `body` with a connection in the snapshot's state: an idle one of the snapshot's, or
    /// a new one whose transaction imports it (or begins it again, at the same state).
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        while true {
            let (connection, wasIdle) = try take()
            do {
                let result = try body(connection)
                finished(connection)
                return result
            } catch let error where wasIdle && (connection.isClosed || Self.endsTheSession(error)) {
                // The server ended the session while it was idle (`idle_in_transaction_session_timeout`,
                // an administrator, a restart): the read runs again, on another of the snapshot's
                // idle connections or, once none is left, on a transaction begun for it.
                state.withLock { forget(connection, in: &$0) }
                connection.closeSoon()
            } catch {
                finished(connection)
                throw error
            }
        }
    }

    /// Whether `error` says the server ended the session: it went away (`.unreachable`), or
    /// ended it for idling in a transaction (SQLSTATE 25P03, which may come before the
    /// connection shows closed).
    private static func endsTheSession(_ error: any Error) -> Bool {
        guard let error = error as? PostgresStoreError else { return false }
        return error.code == .unreachable || error.sqlState == "25P03"
    }

    var isReleased: Bool {
        state.withLock { $0.isReleased }
    }

    func contextsBeganHolding() {
        idleRelease.held()
    }

    func contextsStoppedHolding() {
        idleRelease.letGo { [weak self] in self?.releaseIfIdle() }
    }

    private func take() throws -> (connection: PostgresConnection, wasIdle: Bool) {
        // Under the lock, so that the first reader exports the snapshot before any other imports it.
        try state.withLock { state in
            while let connection = state.idle.popLast() {
                if !connection.isClosed { return (connection, true) }
                forget(connection, in: &state)
            }
            let connection = try pool.take()
            do {
                try connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                if let name = state.name {
                    // The name is the server's own (checked below); SET takes no parameter.
                    try connection.run("SET TRANSACTION SNAPSHOT '\(name)'", logger: logger)
                } else {
                    let (name, change) = try export(on: connection)
                    if let expected = state.change, change != expected {
                        throw PersistenceError(
                            .unavailableGeneration,
                            "this generation's transaction on the PostgreSQL server ended (let go while no context held the "
                                + "generation, or ended by the server: idle_in_transaction_session_timeout, a lost connection) "
                                + "and the store was saved since "
                                + "(save \(expected) then, \(change) now): its state cannot be read again; unpin or refresh the context")
                    }
                    (state.name, state.exporter, state.change) = (name, connection, change)
                }
            } catch {
                connection.closeSoon()
                throw error
            }
            state.connections.append(connection)
            state.isReleased = false
            return (connection, false)
        }
    }

    /// Exports the snapshot of `connection`'s transaction: its name, and the store's save number in it.
    private func export(on connection: PostgresConnection) throws -> (name: String, change: Int64) {
        let rows = try connection.rows(exportSQL, logger: logger)
        guard let cells = rows.first?.makeRandomAccess(), case .text(let name) = try cells[0].value(as: .text),
            !name.isEmpty, name.allSatisfy({ $0.isHexDigit || $0 == "-" })
        else {
            throw PostgresStoreError(.server, "the server exported a snapshot under a name it does not give: \(rows)")
        }
        guard let change = try cells[1].int64() else {
            throw PostgresStoreError(.notAStore, "the store's metadata row is missing from Z_METADATA")
        }
        return (name, change)
    }

    /// A read is done with `connection`: it waits for the next, unless the server closed it.
    private func finished(_ connection: PostgresConnection) {
        state.withLock { state in
            if connection.isClosed { forget(connection, in: &state) } else { state.idle.append(connection) }
        }
        // A read no context held (a save's checks) begins transactions too: they go after it.
        idleRelease.readEnded { [weak self] in self?.releaseIfIdle() }
    }

    private func forget(_ connection: PostgresConnection, in state: inout State) {
        state.connections.removeAll { $0 === connection }
        state.idle.removeAll { $0 === connection }
        if state.exporter === connection { (state.name, state.exporter) = (nil, nil) }
    }

    /// Rolls back the snapshot's transactions, unless a context holds the generation or a read
    /// runs (which schedules the release again when it ends).
    private func releaseIfIdle() {
        let released = state.withLock { state -> [PostgresConnection] in
            guard !idleRelease.isHeld, !state.connections.isEmpty, state.idle.count == state.connections.count else { return [] }
            defer {
                (state.connections, state.idle, state.name, state.exporter) = ([], [], nil, nil)
                state.isReleased = true
            }
            return state.connections
        }
        if !released.isEmpty { logger.trace("a snapshot no context holds let its transactions go", metadata: ["connections": "\(released.count)"]) }
        for connection in released { Self.rollBack(connection, pool: pool, logger: logger) }
    }

    private static func rollBack(_ connection: PostgresConnection, pool: PostgresConnectionPool, logger: Logger) {
        connection.query("ROLLBACK", logger: logger).whenComplete { result in
            if case .success = result { pool.giveBack(connection) } else { connection.closeSoon() }
        }
    }
}
