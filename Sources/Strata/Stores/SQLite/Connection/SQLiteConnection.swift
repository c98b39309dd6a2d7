import CSQLite
import Foundation

/// One connection to a SQLite database, with its prepared statements cached by SQL.
///
/// Not safe to use from two threads at once: it is opened without SQLite's own mutex.
package final class SQLiteConnection: @unchecked Sendable {
    // Sendable by proof: at any moment exactly one owner holds a connection, and each owner
    // serialises its uses — the store's writer (only on the coordinator's serial queue), one
    // read snapshot (only inside its lock), or the pool's idle list (inside its lock, where
    // nothing uses it). A connection moves from one owner to the next by `take()` and
    // `giveBack(_:)`, which drop the old owner's reference; no two owners share one.
    /// Internal, not private: the SQL functions Strata registers (`SQLiteConnection+Functions`)
    /// are registered on it.
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    package let url: URL
    /// The frames in the write-ahead log after this connection's last commit, once
    /// ``countLogFrames()`` is on. The hook reaches it through the connection, which it
    /// outlives no more than the handle (`deinit` closes the handle, and the hook with it).
    let logFrames = ThreadLocked(0)

    /// Opens the database at `url`; `create` makes the file when it is missing.
    ///
    /// - Parameter busyTimeout: how long a statement waits for another connection's lock
    ///   before it fails with `SQLITE_BUSY`.
    package init(url: URL, readOnly: Bool, create: Bool, busyTimeout: Duration) throws {
        var flags = SQLITE_OPEN_NOMUTEX | (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        var handle: OpaquePointer?
        let result = sqlite3_open_v2(url.path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedCode: result, message: message)
        }
        self.handle = handle
        self.url = url
        sqlite3_extended_result_codes(handle, 1)
        let (seconds, attoseconds) = busyTimeout.components
        sqlite3_busy_timeout(handle, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        try registerTextComparison()
        try registerNumericAggregates()
    }

    deinit {
        statements.removeAll()  // statements finalise before the connection closes
        sqlite3_close_v2(handle)
    }

    /// The cached statement for `sql`, prepared on first use. The cache is emptied when it
    /// reaches ``cachedStatementLimit``: fetch conditions with lists of many lengths would
    /// otherwise keep a statement for each.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        if statements.count >= Self.cachedStatementLimit { statements.removeAll() }
        let statement = try SQLiteStatement(connection: handle, sql: sql)
        statements[sql] = statement
        return statement
    }

    static let cachedStatementLimit = 256

    /// Runs a statement that takes no parameters and returns no rows, prepared once for the
    /// connection (`BEGIN`, `COMMIT`, `ROLLBACK`): ``execute(_:)`` prepares at each call, a
    /// tenth of a one-object save's commit when it began and ended every transaction.
    package func run(_ sql: String) throws {
        try statement(sql).forEachRow { _ in }
    }

    /// Runs one or more statements that take no parameters (DDL, pragmas).
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Makes this database a copy of `source`'s, page by page, with SQLite's online backup:
    /// one write transaction of this database, so that its other connections read it as it was
    /// or as it is now, never in between.
    package func replaceContent(with source: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step == SQLITE_DONE ? finish : step
            throw SQLiteError(extendedCode: code, message: String(cString: sqlite3_errstr(code)))
        }
    }

    /// The first column of the first row of `sql`, or `nil` when there is no row.
    package func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        let statement = try statement(sql)
        var result: SQLValue?
        try statement.forEachRow(values) { row in
            if result == nil { result = row.value(0) }
        }
        return result
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`: the write lock is taken first, so
    /// that a conflict with another writer shows at the start, not at the first write), committed
    /// when it returns and rolled back when it throws.
    package func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            if !isAutocommit { try? run("ROLLBACK") }
            throw error
        }
    }

    /// Whether no transaction is open.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The number of rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Changes whenever another connection commits to the database (`PRAGMA data_version`).
    package func dataVersion() throws -> Int64 {
        guard case .integer(let version)? = try scalar("PRAGMA data_version") else { return 0 }
        return version
    }
}
