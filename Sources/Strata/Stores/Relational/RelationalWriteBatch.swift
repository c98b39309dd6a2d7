/// Rows of one table that a save inserts, updates in the same columns, or deletes — or the
/// links and positions of its to-many relationships — handed to the connection at once so that
/// a driver that binds arrays can write them in one statement per batch instead of one per row.
/// Each row is checked as alone: an insert changes nothing where its key is taken, an update or
/// delete nothing where the stored version (`Z_OPT`) is no longer the one its context read —
/// and its object is among those ``RelationalConnection/finishWrites()`` returns. Links and
/// positions have no object: what they find is no conflict.
package struct RelationalWriteBatch {
    /// The most rows a save hands on in one batch: a few statements' worth for a driver that
    /// binds arrays, and a bound on the values a save of many objects holds at once.
    package static let rowsPerBatch = 10_000

    package enum Kind: Equatable {
        /// New rows; `columns` are `Z_PK`, `Z_ENT`, `Z_OPT`, then the written columns, and each
        /// row's values are theirs, in that order.
        case insert(columns: [String])
        /// Changed rows; `columns` are those set (`Z_OPT`, then the changed written columns),
        /// and each row's values are their new values, then the row's key (`Z_PK`), then the
        /// version its context read.
        case update(columns: [String])
        /// Deleted rows; each row's values are its key (`Z_PK`), then the version its context read.
        case delete
        /// Join-table links written from one side: each row's values are the owner's key (in
        /// `own`), the target's (in `other`), its position's ordering key where the relationship
        /// is ordered (in `order`), then, with a `destination` (only where the dialect keeps rows,
        /// ``SQLDialect/keepsRowClause``), the target's key again. A link already there is left,
        /// or given its new position; a link whose target is no longer in `destination` is not
        /// written. Without one (targets the save inserts), no target is looked for.
        case link(own: String, other: String, order: String?, destination: String?)
        /// Every link of the owners whose key each row's one value is, in the join table's
        /// `own` column: those of deleted objects.
        case unlink(own: String)
        /// Positions of an ordered to-many relationship's targets kept in the targets' own rows:
        /// each row's values are the ordering key to set in `column`, then the row's key (`Z_PK`).
        case position(column: String)
    }

    package let kind: Kind
    /// The table, undecorated (the dialect quotes it).
    package let table: String
    /// The statement that writes one row (``rows``' values bound), changing nothing when the
    /// key is taken (an insert) or the version differs: what a driver runs per row.
    package let rowSQL: String
    /// Each row's values, as ``Kind`` lays them out, with its object (none for a link or a
    /// position), in the order to write them.
    package var rows: [(values: [SQLValue], object: ManagedObjectID?)] = []

    package init(_ kind: Kind, table: String, rowSQL: String) {
        self.kind = kind
        self.table = table
        self.rowSQL = rowSQL
    }
}

extension RelationalConnection {
    /// Writes each row with ``RelationalWriteBatch/rowSQL``: the way of a driver that binds no
    /// arrays. A row that changes nothing has its object among those ``finishWrites()`` returns.
    package func writeRowByRow(_ batch: RelationalWriteBatch) throws {
        for (values, object) in batch.rows { try write(batch.rowSQL, values, object: object) }
    }
}
