import PostgresNIO
import Strata

/// A sorted, windowed fetch's rows read into columns past the first few
/// (``ColumnReadingStore``), as the SQLite store reads them: no ``Row`` per object, the
/// to-manys columns of their batches' faults.
extension PostgresStore: ColumnReadingStore {
    /// What ``rows(ofEntity:matching:sortedBy:offset:limit:in:)`` reads, by the same statement.
    package func storedRows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, stored: StoredRow)]? {
        guard let sorted = sortedRead(of: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit) else { return nil }
        return try read(snapshot) { connection in
            try storedRows(of: sorted.table, where: sorted.condition, sorted.values, then: sorted.then, snapshot: snapshot, connection: connection)
        }
    }

    /// The rows of `table`'s entity where `condition` holds, in `ordering`: the first
    /// ``ColumnReads/rowsBeforeColumns`` as rows, the rest in columns, decoded as the event loop hands
    /// them over; their to-manys unread (``rows(ofMembers:where:_:then:targets:connection:)``).
    private func storedRows(
        of table: CoreDataTableMapping.Entity, where condition: String, _ values: [SQLValue], then ordering: String,
        snapshot: any IncrementalStoreSnapshot, connection: PostgresConnection
    ) throws -> [(reference: Int64, stored: StoredRow)] {
        let select = cachedSelectStatement(for: [table], where: condition, targets: .unread(snapshot))
        let batches = unreadTargets(of: table, through: snapshot)
        let decoder = RowDecoder(store: self, table: table, unread: batches)
        let filled = table.toOnes.map(\.slot) + table.toManys.map(\.slot)
        let state = ThreadLocked<(rows: [(reference: Int64, row: Row)], columns: ColumnsBeingRead?)>(([], nil))
        let rowsBeforeColumns = ColumnReads.rowsBeforeColumns  // here: the event loop's thread has no task
        @Sendable func take(_ cells: some PostgresCells) throws {
            try state.withLock { state in
                if state.columns == nil, state.rows.count < rowsBeforeColumns {
                    if let row = try decoder.decode(cells) { state.rows.append(row) }
                    return
                }
                if state.columns == nil {
                    state.columns = ColumnsBeingRead(layout: table.layout, storedAttributes: table.attributeSlots, filledRelationships: filled)
                }
                try decoder.append(cells, to: &state.columns!)
            }
        }
        let bound = [SQLValue.integer(Int64(table.number))] + values
        let sql = PostgresSQL.typedPlaceholders(select.sql + (ordering.isEmpty ? "" : " " + ordering), bound)
        if !values.isEmpty, let statement = try pool.prepared(sql, on: connection) {
            try connection.forEachRow(prepared: statement, bound) { try take(PreparedStatementCells($0)) }
        } else {
            try connection.forEachRow(sql, bound, logger: logger) { try take($0.makeRandomAccess()) }
        }
        let (rows, columns) = state.withLock { $0 }
        var stored = rows.map { (reference: $0.reference, stored: StoredRow.row($0.row)) }
        if let columns {
            let read = columns.finished(unread: Array(zip(table.toManys.map(\.slot), batches)))
            stored.reserveCapacity(rows.count + columns.references.count)
            for (position, reference) in columns.references.enumerated() { stored.append((reference, .column(read, position))) }
        }
        let owners = stored.map(\.reference)
        for batch in batches { batch.setOwners(owners) }
        return stored
    }
}
