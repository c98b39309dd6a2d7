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

    /// How each column of each table stores values, for inserts and updates of many rows bound
    /// as arrays; a table not here is written row by row.
    private let columnStorages: [String: [String: PostgresStorage]]
    /// The most rows one batched insert or update binds (its arrays' length).
    static let rowsPerStatement = RelationalInsertBatch.rowsPerBatch

    init(_ connection: PostgresConnection, dialect: SQLDialect, logger: Logger, columnStorages: [String: [String: PostgresStorage]] = [:]) {
        self.dialect = dialect
        self.columnStorages = columnStorages
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
    /// (``PostgresColumnArray``) and spread into rows by `unnest`, so a save of many new objects
    /// costs the server a few statements, not one per row. Rows whose values a column's array
    /// cannot hold go row by row, as does a lone row.
    func insert(_ batch: RelationalInsertBatch) throws {
        guard batch.rows.count > 1, let kinds = storages(of: batch.columns, in: batch.table) else { return try insertRowByRow(batch) }
        let sql = "INSERT INTO \(dialect.table(batch.table)) (\(batch.columns.map(dialect.column).joined(separator: ", "))) "
            + "SELECT * FROM unnest(\(arrays(kinds))) ON CONFLICT (\(dialect.column("Z_PK"))) DO NOTHING RETURNING \(dialect.column("Z_PK"))"
        try send(sql, kinds: kinds, rows: batch.rows, keyAt: 0, rowSQL: batch.rowSQL)
    }

    /// The rows in statements of up to ``rowsPerStatement`` rows, as ``insert(_:)`` binds them:
    /// one `UPDATE … FROM unnest(…)` joins each row's new values to the stored row of its key and
    /// version, and returns the keys it changed, so an object whose version differs is found
    /// as the per-row statement finds it.
    func update(_ batch: RelationalUpdateBatch) throws {
        let bound = batch.columns + ["Z_PK", "Z_OPT"]
        guard batch.rows.count > 1, let kinds = storages(of: bound, in: batch.table) else { return try updateRowByRow(batch) }
        // The unnested columns are named by position: `v1` … for the new values, then the key and
        // the version read.
        let names = bound.indices.map { "v\($0 + 1)" }
        let assignments = batch.columns.indices.map { "\(dialect.column(batch.columns[$0])) = \(dialect.column(names[$0], of: "changed"))" }
        let key = dialect.column(names[batch.columns.count], of: "changed")
        let version = dialect.column(names[batch.columns.count + 1], of: "changed")
        let sql = "UPDATE \(dialect.table(batch.table)) AS stored SET \(assignments.joined(separator: ", ")) "
            + "FROM unnest(\(arrays(kinds))) AS changed(\(names.map(dialect.column).joined(separator: ", "))) "
            + "WHERE \(dialect.column("Z_PK", of: "stored")) = \(key) AND \(dialect.column("Z_OPT", of: "stored")) = \(version) "
            + "RETURNING \(dialect.column("Z_PK", of: "stored"))"
        try send(sql, kinds: kinds, rows: batch.rows, keyAt: batch.columns.count, rowSQL: batch.rowSQL)
    }

    /// How `table` stores each of `columns` (the bookkeeping columns hold integers), or `nil`
    /// when one is not known: the rows then go row by row.
    private func storages(of columns: [String], in table: String) -> [PostgresStorage]? {
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

    /// Sends `sql` for each run of up to ``rowsPerStatement`` rows, each column bound as one
    /// array; the objects whose key (the value at `keyAt`) it does not return are among those
    /// ``finishWrites()`` returns. A run whose values a column's array cannot hold goes row by
    /// row, with `rowSQL`.
    private func send(_ sql: String, kinds: [PostgresStorage], rows: [(values: [SQLValue], object: ManagedObjectID)], keyAt: Int, rowSQL: String) throws {
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
            var objects: [Int64: ManagedObjectID] = [:]
            for (values, object) in run {
                if case .integer(let key) = values[keyAt] { objects[key] = object }
            }
            try statements.sendReturningKeys(sql, bindings: bindings, objects: objects)
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
