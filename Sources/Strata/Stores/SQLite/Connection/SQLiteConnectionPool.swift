import Foundation

/// The idle read connections of one database, kept open so that pinning a snapshot costs a
/// `BEGIN`, not an open and a schema parse.
package final class SQLiteConnectionPool: Sendable {
    private let idle = ThreadLocked<[SQLiteConnection]>([])
    private let url: URL
    private let busyTimeout: Duration
    /// Run on each connection the pool opens (the store's `SQLitePragmas` option).
    private let pragmas: SQLitePragmas
    /// Idle connections kept beyond this number are closed.
    private let keep: Int

    package init(url: URL, busyTimeout: Duration, pragmas: SQLitePragmas = SQLitePragmas(), keep: Int = 4) {
        self.url = url
        self.busyTimeout = busyTimeout
        self.pragmas = pragmas
        self.keep = keep
    }

    /// An idle connection, or a new read-only one.
    package func take() throws -> SQLiteConnection {
        if let connection = idle.withLock({ $0.popLast() }) { return connection }
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: busyTimeout)
        try pragmas.apply(to: connection)
        return connection
    }

    /// Takes a connection back, with no transaction open.
    package func giveBack(_ connection: SQLiteConnection) {
        guard connection.isAutocommit else { return }  // a connection in an odd state is closed
        idle.withLock { idle in
            if idle.count < keep { idle.append(connection) }
        }
    }

    /// Closes every idle connection.
    package func drain() {
        idle.withLock { $0.removeAll() }
    }
}
