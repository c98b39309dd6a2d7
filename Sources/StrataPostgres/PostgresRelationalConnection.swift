import Logging
import PostgresNIO
import Strata

/// One PostgreSQL connection as the relational core uses it (a save's or a batch request's
/// transaction, a grouped read, `strata verify`'s checks): writes are pipelined
/// (``PipelinedStatements``), and a query first waits for the writes before it, so that it is
/// never answered for a transaction an earlier write's failure aborted.
final class PostgresRelationalConnection: RelationalConnection {
    let dialect: SQLDialect
    private var statements: PipelinedStatements
    private var unchanged: [ManagedObjectID] = []
    /// How many rows each table was given (inserts and links), for
    /// ``PostgresStore/analyzeGrownTables(_:)`` once the transaction commits.
    private(set) var rowsAdded: [String: Int] = [:]

    /// How each column of each table stores values, for inserts, updates and deletes of many
    /// rows bound as arrays; a table not here is written row by row.
    private let columnStorages: [String: [String: PostgresStorage]]
    /// The most rows one batched write binds (its arrays' length).
    static let rowsPerStatement = RelationalWriteBatch.rowsPerBatch
    /// Whether a batched write finds, row by row, the objects it could not write, to report
    /// them as conflicts: an insert whose key another save stored first (`ON CONFLICT DO
    /// NOTHING RETURNING`), an update or a delete at another version (`RETURNING` the keys
    /// written). Without, an insert is a plain `INSERT`, which a taken key fails (`23505`), and an
    /// update or a delete is counted: fewer rows than sent throws ``UncheckedWriteMissedRows``.
    /// A save's first try goes without, and any retry with (``PostgresStore/saving(_:_:)``),
    /// which then names the objects. PostgreSQL's speculative insertion cost a quarter of each
    /// insert of 10,000 rows (51–56 ms against 37–43 in `psql`), and reading 10,000 keys back
    /// 4–8 ms of a save updating a tenth of 100,000 people (about 200 ms), for clashes that are
    /// rare: a key from `Z_MAX` is free unless the counter was set back, and another save's
    /// change is a conflict anyway.
    let checksWrittenKeys: Bool

    /// A batched update or delete without ``checksWrittenKeys`` wrote fewer rows than it was
    /// given: some object was changed or deleted by another save. The save is tried again with
    /// the check, which names them.
    struct UncheckedWriteMissedRows: Error {}

    /// A connection writing through `connection`. Without `columnStorages` (a check that
    /// writes no rows) every batch goes row by row.
    init(
        _ connection: PostgresConnection, dialect: SQLDialect, logger: Logger, columnStorages: [String: [String: PostgresStorage]],
        checksWrittenKeys: Bool = true
    ) {
        self.dialect = dialect
        self.columnStorages = columnStorages
        self.checksWrittenKeys = checksWrittenKeys
        statements = PipelinedStatements(connection: connection, logger: logger)
    }

    func write(_ sql: String, _ values: [SQLValue], object: ManagedObjectID?) throws {
        try statements.send(sql, values, object: object)
    }

    func finishWrites() throws -> [ManagedObjectID] {
        unchanged += try statements.waitForAll()
        defer { unchanged.removeAll() }
        return unchanged
    }

    func forEachRow(_ sql: String, _ values: [SQLValue], _ body: ([SQLValue]) throws -> Void) throws {
        unchanged += try statements.waitForAll()
        for row in try statements.connection.rows(sql, values, logger: statements.logger) {
            let cells = row.makeRandomAccess()
            try body(try (0..<cells.count).map { try cells[$0].value() })
        }
    }

    /// The rows in statements of up to ``rowsPerStatement`` rows: each column bound as one array
    /// (``PostgresColumnArray``) and spread into rows by `unnest`, so a save of many objects
    /// costs the server a few statements, not one per row. With ``checksWrittenKeys``, each
    /// statement of rows returns the keys it wrote, so an object whose key was taken (an insert)
    /// or whose version another save moved on (an update, a delete) is found as the per-row
    /// statement finds it. Rows whose values a column's array cannot hold go row by row, as
    /// does a lone row.
    func write(_ batch: RelationalWriteBatch) throws {
        switch batch.kind {
        case .insert, .link: rowsAdded[batch.table, default: 0] += batch.rows.count
        case .update, .delete, .unlink, .position: break
        }
        let bound: [String]
        switch batch.kind {
        case .insert(let columns): bound = columns
        case .update(let columns): bound = columns + ["Z_PK", "Z_OPT"]
        case .delete: bound = ["Z_PK", "Z_OPT"]
        case .link(let own, let other, let order, _): bound = [own, other] + (order.map { [$0] } ?? [])
        case .unlink(let own): bound = [own]
        case .position(let column): bound = [column, "Z_PK"]
        }
        guard batch.rows.count > 1, let kinds = storages(of: bound, in: batch.table, kind: batch.kind) else { return try writeRowByRow(batch) }
        let table = dialect.table(batch.table)
        let returning = checksWrittenKeys ? " RETURNING \(dialect.column("Z_PK", of: "stored"))" : ""
        // An update's and a delete's unnested columns are named by position (`v1` …), the last
        // two being the key and the version read.
        let names = bound.indices.map { "v\($0 + 1)" }
        let unnested = "unnest(\(arrays(kinds))) AS written(\(names.map(dialect.column).joined(separator: ", ")))"
        func written(_ position: Int) -> String { dialect.column(names[position], of: "written") }
        func matched() -> String {
            "\(dialect.column("Z_PK", of: "stored")) = \(written(names.count - 2)) AND \(dialect.column("Z_OPT", of: "stored")) = \(written(names.count - 1))"
        }
        let sql: String
        switch batch.kind {
        case .insert(let columns):
            sql = "INSERT INTO \(table) AS stored (\(columns.map(dialect.column).joined(separator: ", "))) SELECT * FROM unnest(\(arrays(kinds)))"
                + (checksWrittenKeys ? " ON CONFLICT (\(dialect.column("Z_PK"))) DO NOTHING\(returning)" : "")
        case .update(let columns):
            let assignments = columns.indices.map { "\(dialect.column(columns[$0])) = \(written($0))" }
            sql = "UPDATE \(table) AS stored SET \(assignments.joined(separator: ", ")) FROM \(unnested) WHERE \(matched())\(returning)"
        case .delete:
            sql = "DELETE FROM \(table) AS stored USING \(unnested) WHERE \(matched())\(returning)"
        case .link(let own, let other, let order, let destination):
            // As the per-row statement: only while the target is stored, keeping it stored.
            var stored = ""
            if let destination {
                let keep = dialect.keepsRowClause.map { " \($0)" } ?? ""
                stored = "WHERE EXISTS (SELECT 1 FROM \(dialect.table(destination)) AS target WHERE \(dialect.column("Z_PK", of: "target")) = \(written(1))\(keep)) "
            }
            let onConflict = order.map { "DO UPDATE SET \(dialect.column($0)) = excluded.\(dialect.column($0))" } ?? "DO NOTHING"
            sql = "INSERT INTO \(table) (\(bound.map(dialect.column).joined(separator: ", "))) SELECT * FROM \(unnested) \(stored)"
                + "ON CONFLICT (\(dialect.column(own)), \(dialect.column(other))) \(onConflict)"
        case .unlink(let own):
            sql = "DELETE FROM \(table) AS stored USING \(unnested) WHERE \(dialect.column(own, of: "stored")) = \(written(0))"
        case .position(let column):
            sql = "UPDATE \(table) AS stored SET \(dialect.column(column)) = \(written(0)) FROM \(unnested) "
                + "WHERE \(dialect.column("Z_PK", of: "stored")) = \(written(1))"
        }
        // A new row's key is its first value; a changed or deleted row's, the last but one.
        let check: WrittenRowsCheck =
            switch batch.kind {
            case .insert: checksWrittenKeys ? .keys(at: 0) : .none
            case .update, .delete: checksWrittenKeys ? .keys(at: bound.count - 2) : .count
            case .link, .unlink, .position: .none
            }
        try send(sql, kinds: kinds, rows: batch.rows, check: check, rowSQL: batch.rowSQL)
    }

    /// How `table` stores each of `columns` (the bookkeeping columns, and every column of a
    /// link, an unlink or a position, hold integers), or `nil` when one is not known: the rows
    /// then go row by row.
    private func storages(of columns: [String], in table: String, kind: RelationalWriteBatch.Kind) -> [PostgresStorage]? {
        switch kind {
        case .link, .unlink, .position: return columns.map { _ in .integer }
        case .insert, .update, .delete: break
        }
        guard let storages = columnStorages[table] else { return nil }
        var kinds: [PostgresStorage] = []
        for column in columns {
            guard let storage = ["Z_PK", "Z_ENT", "Z_OPT"].contains(column) ? .integer : storages[column] else { return nil }
            kinds.append(storage)
        }
        return kinds
    }

    /// `$1::bigint[], $2::text[], …`: one array parameter per column.
    private func arrays(_ kinds: [PostgresStorage]) -> String {
        kinds.enumerated().map { "\(dialect.placeholder($0.offset + 1))::\($0.element.sqlType)[]" }.joined(separator: ", ")
    }

    /// How a batched write's statement tells what it could not write.
    private enum WrittenRowsCheck {
        /// It does not (a link, an unlink, a position; an unchecked insert, which fails instead).
        case none
        /// It returns the keys it wrote (the value at this position of each row).
        case keys(at: Int)
        /// It writes as many rows as it is given, or ``UncheckedWriteMissedRows`` is thrown.
        case count
    }

    /// Sends `sql` for each run of up to ``rowsPerStatement`` rows, each column bound as one
    /// array, checked as `check` says: with `.keys`, the objects whose key it does not return
    /// are among those ``finishWrites()`` returns. A run whose values a column's array cannot
    /// hold goes row by row, with `rowSQL`.
    private func send(
        _ sql: String, kinds: [PostgresStorage], rows: [(values: [SQLValue], object: ManagedObjectID?)], check: WrittenRowsCheck,
        rowSQL: String
    ) throws {
        var start = 0
        runs: while start < rows.count {
            let run = rows[start..<min(start + Self.rowsPerStatement, rows.count)]
            start = run.endIndex
            var bindings = PostgresBindings(capacity: kinds.count)
            for (index, storage) in kinds.enumerated() {
                guard let array = PostgresColumnArray(storage, run.map { $0.values[index] }) else {
                    for (values, object) in run { try write(rowSQL, values, object: object) }
                    continue runs
                }
                bindings.append(array)
            }
            switch check {
            case .keys(let keyAt):
                var objects: [Int64: ManagedObjectID] = [:]
                objects.reserveCapacity(run.count)
                for (values, object) in run {
                    if case .integer(let key) = values[keyAt], let object { objects[key] = object }
                }
                try statements.sendBatch(sql, bindings: bindings, check: .keys(objects))
            case .count:
                try statements.sendBatch(sql, bindings: bindings, check: .count(run.count))
            case .none:
                // A batch with nothing to find still counts among the few big statements in flight.
                try statements.sendBatch(sql, bindings: bindings, check: .none)
            }
        }
    }

    /// One statement: the kept targets bound as one `bigint[]`.
    func removeLinks(in table: String, ownColumn: String, otherColumn: String, of owner: Int64, keeping: [Int64]) throws {
        var bindings = PostgresBindings()
        bindings.append(owner)
        bindings.append(keeping)
        try statements.send(
            "DELETE FROM \(dialect.table(table)) WHERE \(dialect.column(ownColumn)) = $1 AND NOT (\(dialect.column(otherColumn)) = ANY($2))",
            bindings: bindings)
    }
}
