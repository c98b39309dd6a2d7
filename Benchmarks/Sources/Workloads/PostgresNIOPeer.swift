import Foundation
import Logging
import PostgresNIO

/// PostgreSQL through postgres-nio directly: one connection, one transaction per write, rows
/// decoded straight into structs. The peer of the "Strata Postgres" column, two ways: as a
/// competent user drives the server (writes batched into array-bound `unnest` statements:
/// "postgres-nio"), and one prepared statement per row ("postgres-nio per row").
public enum PostgresNIOPeer {
    static let logger = Logger(label: "bench.postgres-nio")

    /// The server the Postgres workloads run on: `STRATA_POSTGRES_URL` (`scripts/bench` starts a
    /// throwaway one); without it they are left out.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A new schema's name, for one run of one workload.
    public static func newSchema(_ name: String) -> String {
        "bench_\(name)_\(UInt32.random(in: 0...UInt32.max))"
    }

    public static func connect() async throws -> PostgresConnection {
        guard let serverURL, let components = URLComponents(string: serverURL) else { throw PostgresError.protocol("no STRATA_POSTGRES_URL") }
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
            password: ProcessInfo.processInfo.environment["PGPASSWORD"], database: String(components.path.dropFirst()), tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    /// A connection whose `search_path` is a new schema `schema` with the `person` table, its
    /// email index and its foreign key's.
    public static func create(schema: String) async throws -> PostgresConnection {
        let connection = try await connect()
        try await connection.query("CREATE SCHEMA \(unescaped: schema)", logger: logger)
        try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger)
        try await connection.query(
            """
            CREATE TABLE person (id bigint PRIMARY KEY, name text NOT NULL, email text NOT NULL, age bigint NOT NULL,
                score double precision NOT NULL, created double precision NOT NULL, managerID bigint)
            """, logger: logger)
        try await connection.query("CREATE INDEX person_email ON person(email)", logger: logger)
        try await connection.query("CREATE INDEX person_manager ON person(managerID)", logger: logger)
        return connection
    }

    /// A connection to an existing schema.
    public static func open(schema: String) async throws -> PostgresConnection {
        let connection = try await connect()
        try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger)
        return connection
    }

    struct Insert: PostgresPreparedStatement {
        static let sql = "INSERT INTO person VALUES ($1, $2, $3, $4, $5, $6, $7)"
        typealias Row = ()
        let record: PersonRecord

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(Int64(record.id))
            bindings.append(record.name)
            bindings.append(record.email)
            bindings.append(Int64(record.age))
            bindings.append(record.score)
            bindings.append(record.created.timeIntervalSinceReferenceDate)
            bindings.append(record.managerID.map(Int64.init))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }

    struct Lookup: PostgresPreparedStatement {
        static let sql = "SELECT id, name, email, age, score, created, managerID FROM person WHERE email = $1"
        typealias Row = PersonRecord
        let email: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(email)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> PersonRecord { try PostgresNIOPeer.decode(row) }
    }

    struct AddToScore: PostgresPreparedStatement {
        static let sql = "UPDATE person SET score = score + 1 WHERE id = $1"
        typealias Row = ()
        let id: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }

    /// Workload 1: every record in one transaction, through one prepared statement.
    public static func insert(_ records: [PersonRecord], into connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: logger)
        for record in records {
            _ = try await connection.execute(Insert(record: record), logger: logger)
        }
        try await connection.query("COMMIT", logger: logger)
    }

    /// Rows per statement of the batched writes: each column bound as one array.
    static let batchRows = 10_000

    /// Workload 1 as a competent user drives the server: 10,000 rows per statement, each
    /// column bound as one array and spread into rows by `unnest` (one round trip per batch,
    /// not per row), then `ANALYZE`. postgres-nio binds no array with `NULL`s, so a missing
    /// manager travels as -1 (no person's number) and `NULLIF` turns it back.
    public static func insertBatched(_ records: [PersonRecord], into connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: logger)
        var start = 0
        while start < records.count {
            let batch = records[start..<min(start + batchRows, records.count)]
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(batch.map { Int64($0.id) })
            bindings.append(batch.map(\.name))
            bindings.append(batch.map(\.email))
            bindings.append(batch.map { Int64($0.age) })
            bindings.append(batch.map(\.score))
            bindings.append(batch.map { $0.created.timeIntervalSinceReferenceDate })
            bindings.append(batch.map { $0.managerID.map(Int64.init) ?? -1 })
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO person SELECT id, name, email, age, score, created, NULLIF(manager, -1)
                        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::bigint[])
                            AS u(id, name, email, age, score, created, manager)
                        """, binds: bindings), logger: logger)
            start += batchRows
        }
        try await connection.query("COMMIT", logger: logger)
        // PostgreSQL's advice after a bulk load (the store analyzes the tables its save doubled).
        try await connection.query("ANALYZE person", logger: logger)
    }

    /// Workload 4 as a competent user drives the server: the people read with their scores,
    /// then their new scores written in one `UPDATE … FROM unnest(…)` per 10,000 (as an app
    /// writes values it changed, not an expression the server could compute).
    public static func updateTenthBatched(_ connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: logger)
        var ids: [Int64] = []
        var scores: [Double] = []
        for try await (id, score) in try await connection.query("SELECT id, score FROM person WHERE age < 10", logger: logger)
            .decode((Int64, Double).self)
        {
            ids.append(id)
            scores.append(score + 1)
        }
        var start = 0
        while start < ids.count {
            let range = start..<min(start + batchRows, ids.count)
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(Array(ids[range]))
            bindings.append(Array(scores[range]))
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "UPDATE person SET score = u.score FROM unnest($1::bigint[], $2::float8[]) AS u(id, score) WHERE person.id = u.id",
                    binds: bindings), logger: logger)
            start += batchRows
        }
        try await connection.query("COMMIT", logger: logger)
    }

    /// Workload 10: the batch update's people, in one statement.
    public static func updateTenthInOneStatement(_ connection: PostgresConnection) async throws {
        try await connection.query("UPDATE person SET score = score + 1 WHERE age < 10", logger: logger)
    }

    /// Workload 11: the batch delete's people, in one statement.
    public static func deleteTenthInOneStatement(_ connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM person WHERE age < 10", logger: logger)
    }

    /// Workload 13: people grouped by age, as Strata's grouped fetch.
    public static func groupByAge(_ connection: PostgresConnection) async throws -> Int {
        var groups = 0
        for try await _ in try await connection.query(
            "SELECT age, count(*), min(score), max(score) FROM person GROUP BY age ORDER BY age", logger: logger)
        {
            groups += 1
        }
        return groups
    }

    /// Workload 3: every row decoded into a struct, reading one column of each.
    public static func fetchAll(_ connection: PostgresConnection) async throws -> Int {
        var total = 0
        for try await row in try await connection.query("SELECT id, name, email, age, score, created, managerID FROM person", logger: logger) {
            total &+= try decode(row).age
        }
        return total
    }

    /// Workload 4: the same people as Strata's update, one prepared statement per person, in one
    /// transaction.
    public static func updateTenth(_ connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: logger)
        var ids: [Int64] = []
        for try await id in try await connection.query("SELECT id FROM person WHERE age < 10", logger: logger).decode(Int64.self) {
            ids.append(id)
        }
        for id in ids { _ = try await connection.execute(AddToScore(id: id), logger: logger) }
        try await connection.query("COMMIT", logger: logger)
    }

    /// Workload 5a: one indexed, prepared `SELECT … WHERE email = $1` per email.
    public static func lookUp(_ emails: [String], in connection: PostgresConnection) async throws -> Int {
        var found = 0
        for email in emails {
            for try await _ in try await connection.execute(Lookup(email: email), logger: logger) { found += 1 }
        }
        return found
    }

    static func decode(_ row: PostgresRow) throws -> PersonRecord {
        let (id, name, email, age, score, created, managerID) = try row.decode((Int64, String, String, Int64, Double, Double, Int64?).self)
        return PersonRecord(
            id: Int(id), name: name, email: email, age: Int(age), score: score, created: Date(timeIntervalSinceReferenceDate: created),
            managerID: managerID.map(Int.init))
    }

    /// The schema of `count` people, made once per size and process.
    public static func fixture(count: Int) async throws -> String {
        let schema = "bench_nio_fixture_\(count)"
        let connection = try await connect()
        defer { Task { try? await connection.close() } }
        var exists = false
        for try await _ in try await connection.query("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)", logger: logger) { exists = true }
        if !exists {
            let fresh = try await create(schema: schema)
            try await insertBatched(PersonRecord.generate(count: count), into: fresh)
            try await fresh.close()
        }
        return schema
    }

    /// Drops a schema the workloads made.
    public static func drop(schema: String) async throws {
        let connection = try await connect()
        try await connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger)
        try await connection.close()
    }
}
