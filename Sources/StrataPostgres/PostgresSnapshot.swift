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
final class PostgresSnapshot: IncrementalStoreSnapshot {
    private let pool: PostgresConnectionPool
    private let logger: Logger

    private struct State {
        /// The exported snapshot's name, once the first transaction has begun.
        var name: String?
        /// Every connection with a transaction of the snapshot (the exporting one first), and
        /// those of them no read is using.
        var connections: [PostgresConnection] = []
        var idle: [PostgresConnection] = []
    }
    private let state = ThreadLocked(State())

    init(pool: PostgresConnectionPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    deinit {
        // Not waited for: the last reference may go on any thread.
        let pool = pool
        for connection in state.withLock({ $0.connections }) {
            connection.query("ROLLBACK", logger: logger).whenComplete { result in
                if case .success = result { pool.giveBack(connection) } else { connection.closeSoon() }
            }
        }
    }

    /// Runs `body` with a connection in the snapshot's state: an idle one of the snapshot's, or
    /// a new one whose transaction imports it.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try take()
        defer {
            if !connection.isClosed { state.withLock { $0.idle.append(connection) } }
        }
        return try body(connection)
    }

    private func take() throws -> PostgresConnection {
        // Under the lock, so that the first reader exports the snapshot before any other imports it.
        try state.withLock { state in
            if let connection = state.idle.popLast() { return connection }
            let connection = try pool.take()
            do {
                try connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                if let name = state.name {
                    // The name is the server's own (checked below); SET takes no parameter.
                    try connection.run("SET TRANSACTION SNAPSHOT '\(name)'", logger: logger)
                } else {
                    let rows = try connection.rows("SELECT pg_export_snapshot()", logger: logger)
                    guard case .text(let name)? = try rows.first?.makeRandomAccess()[0].value(as: .text),
                        !name.isEmpty, name.allSatisfy({ $0.isHexDigit || $0 == "-" })
                    else {
                        throw PostgresStoreError(.server, "the server exported a snapshot under a name it does not give: \(rows)")
                    }
                    state.name = name
                }
            } catch {
                connection.closeSoon()
                throw error
            }
            state.connections.append(connection)
            return connection
        }
    }
}
