import Logging
import NIOCore
import PostgresNIO
import Strata

/// A generation's view of a PostgreSQL store: a `REPEATABLE READ` read-only transaction on one
/// connection, begun at the first read (a generation no context reads holds no connection) and
/// rolled back, its connection given back, when the generation goes.
///
/// Reads through one snapshot see one state of the database however long they go on, and
/// whatever other servers commit meanwhile: Core Data's query generations, across machines.
final class PostgresSnapshot: IncrementalStoreSnapshot {
    private let pool: PostgresConnectionPool
    private let logger: Logger
    private let connection = ThreadLocked<PostgresConnection?>(nil)

    init(pool: PostgresConnectionPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    deinit {
        // Not waited for: the last reference may go on any thread.
        guard let connection = connection.withLock({ $0.take() }) else { return }
        let pool = pool
        connection.query("ROLLBACK", logger: logger).whenComplete { result in
            if case .success = result { pool.giveBack(connection) } else { connection.closeSoon() }
        }
    }

    /// Runs `body` with the snapshot's connection, one reader at a time.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            if connection == nil {
                let new = try pool.take()
                do {
                    try new.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                } catch {
                    new.closeSoon()
                    throw error
                }
                connection = new
            }
            guard let connection else { preconditionFailure("the snapshot's connection was just set") }
            return try body(connection)
        }
    }
}
