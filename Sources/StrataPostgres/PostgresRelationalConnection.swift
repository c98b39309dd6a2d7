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

    init(_ connection: PostgresConnection, dialect: SQLDialect, logger: Logger) {
        self.dialect = dialect
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
