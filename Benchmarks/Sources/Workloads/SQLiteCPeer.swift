import BenchSQLite
import Foundation

/// SQLite through its C API with nothing between: the floor that GRDB's layer is measured
/// against (issue 13 chooses Strata's SQL layer by that cost). The same statements, pragmas and
/// transactions as ``GRDBPeer``, on the same files; values read column by column.
public enum SQLiteCPeer {
    /// One connection, in WAL mode as GRDB's pools are.
    public final class Connection {
        let handle: OpaquePointer

        public init(_ url: URL) throws {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                let handle
            else {
                sqlite3_close(handle)
                throw PeerError.sqlite("cannot open \(url.path)")
            }
            self.handle = handle
            try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        }

        deinit { sqlite3_close_v2(handle) }

        func execute(_ sql: String) throws {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
                throw PeerError.sqlite(String(cString: sqlite3_errmsg(handle)))
            }
        }

        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
                let statement
            else { throw PeerError.sqlite(String(cString: sqlite3_errmsg(handle))) }
            return statement
        }

        func transaction<T>(_ body: () throws -> T) throws -> T {
            try execute("BEGIN IMMEDIATE")
            do {
                let result = try body()
                try execute("COMMIT")
                return result
            } catch {
                try? execute("ROLLBACK")
                throw error
            }
        }
    }

    public enum PeerError: Error { case sqlite(String) }

    public static func create(at url: URL) throws -> Connection {
        let connection = try Connection(url)
        try connection.execute("""
            CREATE TABLE person (
                id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL,
                score DOUBLE NOT NULL, created DOUBLE NOT NULL, managerID INTEGER REFERENCES person(id));
            CREATE INDEX person_email ON person(email);
            """)
        return connection
    }

    /// Workload 1: every record in one transaction, through one prepared statement.
    public static func insert(_ records: [PersonRecord], into connection: Connection) throws {
        let statement = try connection.prepare("INSERT INTO person VALUES (?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        try connection.transaction {
            for record in records {
                sqlite3_bind_int64(statement, 1, Int64(record.id))
                bind(record.name, to: statement, at: 2)
                bind(record.email, to: statement, at: 3)
                sqlite3_bind_int64(statement, 4, Int64(record.age))
                sqlite3_bind_double(statement, 5, record.score)
                sqlite3_bind_double(statement, 6, record.created.timeIntervalSinceReferenceDate)
                if let manager = record.managerID { sqlite3_bind_int64(statement, 7, Int64(manager)) } else { sqlite3_bind_null(statement, 7) }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw PeerError.sqlite(String(cString: sqlite3_errmsg(connection.handle))) }
                sqlite3_reset(statement)
            }
        }
    }

    /// Workload 3: every row decoded into a struct, reading one column of each.
    public static func fetchAll(_ connection: Connection) throws -> Int {
        let statement = try connection.prepare("SELECT * FROM person")
        defer { sqlite3_finalize(statement) }
        var total = 0
        while sqlite3_step(statement) == SQLITE_ROW { total &+= decode(statement).age }
        return total
    }

    /// Workload 4: the same people as the other peers' update, one statement per person.
    public static func updateTenth(_ connection: Connection) throws {
        let select = try connection.prepare("SELECT id FROM person WHERE age < 10")
        let update = try connection.prepare("UPDATE person SET score = score + 1 WHERE id = ?")
        defer {
            sqlite3_finalize(select)
            sqlite3_finalize(update)
        }
        try connection.transaction {
            var ids: [Int64] = []
            while sqlite3_step(select) == SQLITE_ROW { ids.append(sqlite3_column_int64(select, 0)) }
            for id in ids {
                sqlite3_bind_int64(update, 1, id)
                guard sqlite3_step(update) == SQLITE_DONE else { throw PeerError.sqlite(String(cString: sqlite3_errmsg(connection.handle))) }
                sqlite3_reset(update)
            }
        }
    }

    /// Workload 5a: one indexed `SELECT … WHERE email = ?` per email.
    public static func lookUp(_ emails: [String], in connection: Connection) throws -> Int {
        let statement = try connection.prepare("SELECT * FROM person WHERE email = ?")
        defer { sqlite3_finalize(statement) }
        var found = 0
        for email in emails {
            bind(email, to: statement, at: 1)
            while sqlite3_step(statement) == SQLITE_ROW { found += decode(statement).id >= 0 ? 1 : 0 }
            sqlite3_reset(statement)
        }
        return found
    }

    /// `SQLITE_TRANSIENT`, which Swift cannot import from its macro.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ text: String, to statement: OpaquePointer, at index: Int32) {
        sqlite3_bind_text(statement, index, text, -1, transient)
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: bytes)
    }

    static func decode(_ statement: OpaquePointer) -> PersonRecord {
        PersonRecord(
            id: Int(sqlite3_column_int64(statement, 0)), name: text(statement, 1), email: text(statement, 2),
            age: Int(sqlite3_column_int64(statement, 3)), score: sqlite3_column_double(statement, 4),
            created: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 5)),
            managerID: sqlite3_column_type(statement, 6) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, 6)))
    }
}
