import Logging
import NIOCore
import PostgresNIO
import Strata

/// The open connections of one store: taken for a save or a snapshot, given back after. Idle
/// connections beyond ``keep`` are closed; a connection the server closed is never handed out.
///
/// A pool can instead hold one connection that another owner has in a transaction
/// (``init(pinned:logger:)``): every store work on it then happens in that transaction, as a
/// migration's two stores (old model, new model) do.
final class PostgresConnectionPool: Sendable {
    private enum Source {
        case server(PostgresConnection.Configuration)
        /// The one connection of a pinned pool: its owner begins, ends and closes it.
        case pinned(PostgresConnection)
    }
    private let source: Source
    private let logger: Logger
    private let idle = ThreadLocked<[PostgresConnection]>([])
    private let keep: Int
    private let nextID = ThreadLocked(0)
    /// The statements prepared on each connection, by SQL. An entry holds its connection, so
    /// that no new connection takes its identifier while the entry lives.
    private let prepared = ThreadLocked<[ObjectIdentifier: (connection: PostgresConnection, statements: [String: PreparedQuery])]>([:])

    init(configuration: PostgresConnection.Configuration, logger: Logger, keep: Int = 4) {
        source = .server(configuration)
        self.logger = logger
        self.keep = keep
    }

    init(pinned connection: PostgresConnection, logger: Logger) {
        source = .pinned(connection)
        self.logger = logger
        keep = 0
    }

    /// Whether the pool's one connection is in a transaction its owner ends.
    var isPinned: Bool {
        if case .pinned = source { true } else { false }
    }

    deinit {
        drain()
    }

    /// An idle connection, or a new one.
    func take() throws -> PostgresConnection {
        let configuration: PostgresConnection.Configuration
        switch source {
        case .pinned(let connection): return connection
        case .server(let server): configuration = server
        }
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

    /// The most statements prepared on one connection: fetches by predicates of many shapes
    /// (`IN` lists of every length) run unprepared beyond it, rather than fill the server's memory.
    static let preparedPerConnection = 256

    /// `sql` prepared on `connection`: parsed by the server once per connection, and planned
    /// once it has run a few times, where a statement sent with its text is parsed and planned
    /// at every run. Its parameters take the types the server infers (cast them in the SQL:
    /// ``PostgresSQL/typedPlaceholders(_:_:)``). `nil` on a pinned pool (a migration's, whose
    /// transaction changes tables under its statements), and on a connection that has prepared
    /// ``preparedPerConnection`` statements.
    func prepared(_ sql: String, on connection: PostgresConnection) throws -> PreparedQuery? {
        guard !isPinned else { return nil }
        let key = ObjectIdentifier(connection)
        let known = prepared.withLock { prepared -> (statement: PreparedQuery?, count: Int) in
            (prepared[key]?.statements[sql], prepared[key]?.statements.count ?? 0)
        }
        if let statement = known.statement { return statement }
        guard known.count < Self.preparedPerConnection else { return nil }
        let statement: PreparedQuery
        do {
            statement = try connection.waitUnlessClosed(connection.prepare(query: sql))
        } catch {
            throw PostgresSQL.storeError(error, doing: "a statement could not be prepared")
        }
        prepared.withLock { prepared in
            // The statements of connections closed since go with them.
            prepared = prepared.filter { !$0.value.connection.isClosed }
            prepared[key, default: (connection, [:])].statements[sql] = statement
        }
        return statement
    }

    /// Takes back a connection with no transaction open.
    func giveBack(_ connection: PostgresConnection) {
        guard !isPinned, !connection.isClosed else { return }
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
            if !isPinned { connection.closeSoon() }
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
