import BenchLibPQ
import Foundation

/// PostgreSQL through libpq, its own C client, called synchronously on the caller's thread:
/// what the store's synchronous contract would cost with no event loop between it and the
/// server (postgres-nio answers on an event loop's thread, which the store then waits for).
/// The same statements as ``PostgresNIOPeer`` on its fixture; results in the binary format,
/// decoded column by column into ``PersonRecord``s.
public enum LibPQPeer {
    public enum PeerError: Error { case postgres(String) }

    /// One connection, its `search_path` set to a schema.
    public final class Connection {
        let handle: OpaquePointer

        public init(schema: String) throws {
            guard let url = PostgresNIOPeer.serverURL, let handle = PQconnectdb(url) else { throw PeerError.postgres("no STRATA_POSTGRES_URL") }
            self.handle = handle
            guard PQstatus(handle) == CONNECTION_OK else { throw PeerError.postgres(String(cString: PQerrorMessage(handle))) }
            try execute("SET search_path TO \(schema)")
        }

        deinit { PQfinish(handle) }

        func execute(_ sql: String) throws {
            let result = PQexec(handle, sql)
            defer { PQclear(result) }
            try check(result)
        }

        func check(_ result: OpaquePointer?) throws {
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
                throw PeerError.postgres(String(cString: PQerrorMessage(handle)))
            }
        }
    }

    /// A connection to the postgres-nio peer's fixture of `count` people (made if missing).
    public static func open(count: Int) async throws -> Connection {
        try Connection(schema: await PostgresNIOPeer.fixture(count: count))
    }

    static let columns = "SELECT id, name, email, age, score, created, managerID FROM person"

    /// Workload 3: every row decoded into a struct, reading one column of each.
    public static func fetchAll(_ connection: Connection) throws -> Int {
        let result = PQexecParams(connection.handle, columns, 0, nil, nil, nil, nil, 1)
        defer { PQclear(result) }
        try connection.check(result)
        var total = 0
        for row in 0..<PQntuples(result) { total &+= decode(result, row).age }
        return total
    }

    /// Workload 5a: one indexed, prepared `SELECT … WHERE email = $1` per email, each waited
    /// for on the calling thread.
    public static func lookUp(_ emails: [String], in connection: Connection) throws -> Int {
        let prepared = PQprepare(connection.handle, "lookup", columns + " WHERE email = $1", 1, nil)
        try connection.check(prepared)
        PQclear(prepared)
        var found = 0
        for email in emails {
            let result = email.withCString { text in
                withUnsafePointer(to: Optional(text)) { values in
                    PQexecPrepared(connection.handle, "lookup", 1, values, nil, nil, 1)
                }
            }
            defer { PQclear(result) }
            try connection.check(result)
            for row in 0..<PQntuples(result) where !decode(result, row).email.isEmpty { found += 1 }
        }
        return found
    }

    /// A row of ``columns`` in the binary format: integers and doubles in network order, text as is.
    static func decode(_ result: OpaquePointer?, _ row: Int32) -> PersonRecord {
        func bits(_ column: Int32) -> UInt64 {
            guard let value = PQgetvalue(result, row, column) else { return 0 }
            return UnsafeRawPointer(value).loadUnaligned(as: UInt64.self).bigEndian
        }
        func text(_ column: Int32) -> String {
            guard let value = PQgetvalue(result, row, column) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, column))), as: UTF8.self)
        }
        let manager = PQgetisnull(result, row, 6) == 1 ? nil : Int(Int64(bitPattern: bits(6)))
        return PersonRecord(
            id: Int(Int64(bitPattern: bits(0))), name: text(1), email: text(2), age: Int(Int64(bitPattern: bits(3))),
            score: Double(bitPattern: bits(4)), created: Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits(5))), managerID: manager)
    }
}
