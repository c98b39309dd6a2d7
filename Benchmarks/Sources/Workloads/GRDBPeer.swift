import Foundation
import GRDB

/// SQLite through GRDB, by its fastest idiomatic path: WAL, one transaction per write,
/// prepared statements, rows decoded straight into structs.
public enum GRDBPeer {
    /// A new database at `url` with the `person` table, its email index, and the index on its
    /// foreign key that GRDB's `belongsTo` makes (without it, GRDB's foreign-key checks make
    /// deleting a person a scan of the table for its reports).
    public static func create(at url: URL) throws -> DatabasePool {
        let pool = try DatabasePool(path: url.path)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE person (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL,
                    score DOUBLE NOT NULL, created DOUBLE NOT NULL, managerID INTEGER REFERENCES person(id));
                CREATE INDEX person_email ON person(email);
                CREATE INDEX person_manager ON person(managerID);
                """)
        }
        return pool
    }

    /// An existing database, in WAL mode as GRDB's pools always are.
    public static func open(_ url: URL) throws -> DatabasePool {
        try DatabasePool(path: url.path)
    }

    /// Workload 1: every record in one transaction, through one prepared statement.
    public static func insert(_ records: [PersonRecord], into pool: DatabasePool) throws {
        try pool.write { db in try insert(records, in: db) }
    }

    /// Workload 8: one record, in a transaction of its own.
    public static func insertOne(_ record: PersonRecord, into pool: DatabasePool) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO person (name, email, age, score, created) VALUES (?, ?, ?, ?, ?)",
                arguments: [record.name, record.email, record.age, record.score, record.created.timeIntervalSinceReferenceDate])
        }
    }

    private static func insert(_ records: [PersonRecord], in db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO person VALUES (?, ?, ?, ?, ?, ?, ?)")
        for record in records {
            try statement.execute(arguments: [
                record.id, record.name, record.email, record.age, record.score,
                record.created.timeIntervalSinceReferenceDate, record.managerID,
            ])
        }
    }

    /// Workload 7: `workers` tasks write their share of `records` at once, one transaction
    /// per `batch` people (the pool runs them one at a time, as SQLite has one writer).
    public static func insertConcurrently(_ records: [PersonRecord], workers: Int, batch: Int, into pool: DatabasePool) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for start in stride(from: worker * batch, to: records.count, by: workers * batch) {
                        let slice = Array(records[start..<min(start + batch, records.count)])
                        try await pool.write { db in try insert(slice, in: db) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Workload 3: every row decoded into a struct, reading one column of each.
    public static func fetchAll(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in
            var total = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM person")
            while let row = try rows.next() { total &+= decode(row).age }
            return total
        }
    }

    /// Workload 4: the same people as Strata's update, one statement per person.
    public static func updateTenth(_ pool: DatabasePool) throws {
        try pool.write { db in
            let ids = try Int.fetchAll(db, sql: "SELECT id FROM person WHERE age < 10")
            let statement = try db.makeStatement(sql: "UPDATE person SET score = score + 1 WHERE id = ?")
            for id in ids { try statement.execute(arguments: [id]) }
        }
    }

    /// Workload 10: the batch update's people, in one statement.
    public static func updateTenthInOneStatement(_ pool: DatabasePool) throws {
        try pool.write { db in try db.execute(sql: "UPDATE person SET score = score + 1 WHERE age < 10") }
    }

    /// Workload 13: people grouped by age, as Strata's grouped fetch.
    public static func groupByAge(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT age, count(*), min(score), max(score) FROM person GROUP BY age ORDER BY age").count
        }
    }

    /// Workload 11: the batch delete's people, in one statement.
    public static func deleteTenth(_ pool: DatabasePool) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM person WHERE age < 10") }
    }

    /// Workload 5a: one indexed `SELECT … WHERE email = ?` per email.
    public static func lookUp(_ emails: [String], in pool: DatabasePool) throws -> Int {
        try pool.read { db in
            let statement = try db.makeStatement(sql: "SELECT * FROM person WHERE email = ?")
            var found = 0
            for email in emails {
                found += try Row.fetchAll(statement, arguments: [email]).map(decode).count
            }
            return found
        }
    }

    /// Workload 5b: a range scan on the unindexed `score`.
    public static func scan(below bound: Double, in pool: DatabasePool) throws -> Int {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM person WHERE score < ?", arguments: [bound]).map(decode).count
        }
    }

    static func decode(_ row: Row) -> PersonRecord {
        PersonRecord(
            id: row[0], name: row[1], email: row[2], age: row[3], score: row[4],
            created: Date(timeIntervalSinceReferenceDate: row[5]), managerID: row[6]
        )
    }

    /// A database of `count` people, made once per size (see ``Fixtures``).
    public static func fixture(count: Int) async throws -> URL {
        try await Fixtures.file("people.sqlite", count: count) { url in
            let pool = try create(at: url)
            try insert(PersonRecord.generate(count: count), into: pool)
            _ = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try pool.close()
        }
    }
}
