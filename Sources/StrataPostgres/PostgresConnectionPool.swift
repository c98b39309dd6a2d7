import Logging
import NIOCore
import PostgresNIO
import Strata

/// The open connections of one store: taken for a save or a snapshot, given back after. Idle
/// connections beyond ``keep`` are closed; a connection the server closed is never handed out.
final class PostgresConnectionPool: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let idle = ThreadLocked<[PostgresConnection]>([])
    private let keep: Int
    private let nextID = ThreadLocked(0)

    init(configuration: PostgresConnection.Configuration, logger: Logger, keep: Int = 4) {
        self.configuration = configuration
        self.logger = logger
        self.keep = keep
    }

    deinit {
        drain()
    }

    /// An idle connection, or a new one.
    func take() throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        let id = nextID.withLock { id in
            id += 1
            return id
        }
        do {
            return try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration, id: id, logger: logger
            ).wait()
        } catch {
            throw PostgresSQL.storeError(error, doing: "cannot connect to the server")
        }
    }

    /// Takes back a connection with no transaction open.
    func giveBack(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLock { idle in
            guard idle.count < keep else { return false }
            idle.append(connection)
            return true
        }
        if !kept { connection.closeSoon() }
    }

    /// Runs `body` with a connection, given back after (closed if `body` failed on it).
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try take()
        do {
            let result = try body(connection)
            giveBack(connection)
            return result
        } catch {
            connection.closeSoon()
            throw error
        }
    }

    /// Closes every idle connection.
    func drain() {
        for connection in idle.withLock({ idle in defer { idle.removeAll() }; return idle }) {
            connection.closeSoon()
        }
    }
}
