/// Rows of one table that a save inserts, updates in the same columns, or deletes, handed to
/// the connection at once so that a driver that binds arrays can write them in one statement
/// per batch instead of one per row. Each row is checked as alone: an insert changes nothing
/// where its key is taken, an update or delete nothing where the stored version (`Z_OPT`) is
/// no longer the one its context read — and its object is among those
/// ``RelationalConnection/finishWrites()`` returns.
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
    }

    package let kind: Kind
    /// The table, undecorated (the dialect quotes it).
    package let table: String
    /// The statement that writes one row (``rows``' values bound), changing nothing when the
    /// key is taken (an insert) or the version differs: what a driver runs per row.
    package let rowSQL: String
    /// Each row's values, as ``Kind`` lays them out, with its object, in the order to write them.
    package var rows: [(values: [SQLValue], object: ManagedObjectID)] = []

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
