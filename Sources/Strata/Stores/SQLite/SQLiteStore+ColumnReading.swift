import Foundation

/// A sorted, windowed fetch's rows read straight into columns (``ColumnReadingStore``) past
/// the first few: each value appended to its attribute's column, no ``Row`` per object, and
/// each to-many a column of faults made when an object takes a row of its own.
extension SQLiteStore: ColumnReadingStore {
    package func storedRows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, stored: StoredRow)]? {
        guard let snapshot = snapshot as? SQLiteReadSnapshot,
            let (entity, sql, bindings) = sortedSelect(of: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit)
        else { return nil }
        let unread = unreadToManys(of: entity, readThrough: snapshot)
        let rows = try sqlite {
            try snapshot.read { connection in try readStoredRows(of: entity, statement: connection.statement(sql), bindings: bindings, unread: unread) }
        }
        if !unread.isEmpty {
            let owners = rows.map(\.reference)
            for toMany in unread { toMany.batch.setOwners(owners) }
        }
        return rows
    }

    /// The rows `statement` reads (a ``CoreDataTableMapping/Entity/select(where:extraJoins:)``
    /// of `entity`): the first ``ColumnReads/rowsBeforeColumns`` as rows, the rest in columns; the to-manys
    /// of `unread` left to their batches. A damaged row fails the whole read, as a read into
    /// rows does.
    private func readStoredRows(
        of entity: CoreDataTableMapping.Entity, statement: SQLiteStatement, bindings: [SQLValue], unread: [UnreadToMany]
    ) throws -> [(reference: Int64, stored: StoredRow)] {
        var rows: [(reference: Int64, row: Row)] = []
        var columns: ColumnsBeingRead?
        let spaces = idSpaces
        let rowsBeforeColumns = ColumnReads.rowsBeforeColumns
        try statement.forEachRow(bindings) { statement in
            if columns == nil, rows.count < rowsBeforeColumns {
                rows.append(try decode(statement, entity: entity, spaces: spaces, unreadToManys: unread))
                return
            }
            if columns == nil {
                columns = ColumnsBeingRead(
                    layout: entity.layout, storedAttributes: entity.attributeSlots, filledRelationships: entity.toOneSlots + unread.map(\.slot))
            }
            try appendRow(statement, of: entity, spaces: spaces, to: &columns!)
        }
        var stored = rows.map { (reference: $0.reference, stored: StoredRow.row($0.row)) }
        if let columns {
            let read = columns.finished(unread: unread.map { ($0.slot, $0.batch) })
            stored.reserveCapacity(rows.count + columns.references.count)
            for (position, reference) in columns.references.enumerated() { stored.append((reference, .column(read, position))) }
        }
        return stored
    }

    /// Appends the row `statement` stands on to `columns`, decoded as
    /// ``decode(_:entity:spaces:unreadToManys:)`` decodes it into a row.
    private func appendRow(
        _ statement: SQLiteStatement, of entity: CoreDataTableMapping.Entity, spaces: [Int: ObjectIDSpace], to columns: inout ColumnsBeingRead
    ) throws {
        let reference = statement.int64(0)
        var column: Int32 = 2
        for position in entity.attributeTypes.indices {
            defer { column += 1 }
            let slot = entity.attributeSlots[position]
            // Text goes from SQLite's buffer into the column's, with no `String` made between
            // (one that is not valid UTF-8 takes the general way, which repairs it).
            if entity.attributeTypes[position] == .string,
                statement.withText(column, { columns.attributes[slot].appendString(utf8: $0) }) == true
            {
                continue
            }
            columns.attributes[slot].append(try attributeValue(statement, column: column, position: position, of: entity, reference: reference))
        }
        for (position, slot) in entity.toOneSlots.enumerated() {
            columns.relationships[slot].append(
                .toOne(try toOneTarget(statement, column: column, position: position, of: entity, reference: reference, spaces: spaces)))
            column += 2
        }
        columns.appendUnstored()
        columns.references.append(reference)
        columns.versions.append(statement.int64(1))
    }
}
