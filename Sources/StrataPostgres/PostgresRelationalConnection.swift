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

    /// How each column of each table stores values, for inserts of many rows bound as arrays;
    /// a table not here is inserted row by row.
    private let columnStorages: [String: [String: PostgresStorage]]
    /// The most rows one batched insert binds (its arrays' length).
    static let rowsPerInsert = RelationalInsertBatch.rowsPerBatch

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

    /// The rows in statements of up to ``rowsPerInsert`` rows: each column bound as one array
    /// (``PostgresColumnArray``) and spread into rows by `unnest`, so a save of many new objects
    /// costs the server a few statements, not one per row. Rows whose values a column's array
    /// cannot hold go row by row, as does a lone row.
    func insert(_ batch: RelationalInsertBatch) throws {
        guard batch.rows.count > 1, let storages = columnStorages[batch.table] else { return try insertRowByRow(batch) }
        var kinds: [PostgresStorage] = []
        for column in batch.columns {
            guard let storage = ["Z_PK", "Z_ENT", "Z_OPT"].contains(column) ? .integer : storages[column] else { return try insertRowByRow(batch) }
            kinds.append(storage)
        }
        let arrays = kinds.enumerated().map { "\(dialect.placeholder($0.offset + 1))::\($0.element.sqlType)[]" }
        let sql = "INSERT INTO \(dialect.table(batch.table)) (\(batch.columns.map(dialect.column).joined(separator: ", "))) "
            + "SELECT * FROM unnest(\(arrays.joined(separator: ", "))) ON CONFLICT (\(dialect.column("Z_PK"))) DO NOTHING RETURNING \(dialect.column("Z_PK"))"
        var start = 0
        rows: while start < batch.rows.count {
            let rows = batch.rows[start..<min(start + Self.rowsPerInsert, batch.rows.count)]
            start = rows.endIndex
            var bindings = PostgresBindings(capacity: kinds.count)
            for (index, storage) in kinds.enumerated() {
                guard let array = PostgresColumnArray(storage, rows.map { $0.values[index] }) else {
                    for (values, object) in rows { try write(batch.rowSQL, values, object: object) }
                    continue rows
                }
                bindings.append(array)
            }
            var inserted: [Int64: ManagedObjectID] = [:]
            for (values, object) in rows {
                if case .integer(let key) = values[0] { inserted[key] = object }
            }
            try statements.sendInsert(sql, bindings: bindings, inserted: inserted)
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
