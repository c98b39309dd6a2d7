/// New rows of one entity that a save inserts, handed to the connection at once so that a
/// driver that binds arrays can insert them in one statement per batch instead of one per row.
package struct RelationalInsertBatch {
    /// The most rows a save hands on in one batch: a few statements' worth for a driver that
    /// binds arrays, and a bound on the values a save of many objects holds at once.
    package static let rowsPerBatch = 10_000

    /// The table, undecorated (the dialect quotes it).
    package let table: String
    /// `Z_PK`, `Z_ENT`, `Z_OPT`, then the written columns, undecorated.
    package let columns: [String]
    /// The statement that inserts one row (``rows``' values bound), inserting nothing when the
    /// key is taken: what a driver runs per row.
    package let rowSQL: String
    /// Each row's values, in ``columns``' order, with its object, in the order to insert them.
    package var rows: [(values: [SQLValue], object: ManagedObjectID)] = []
}

extension RelationalConnection {
    /// Inserts each row with ``RelationalInsertBatch/rowSQL``: the way of a driver that binds no
    /// arrays. A row whose key is taken inserts nothing, and its object is among those
    /// ``finishWrites()`` returns.
    package func insertRowByRow(_ batch: RelationalInsertBatch) throws {
        for (values, object) in batch.rows { try write(batch.rowSQL, values, object: object) }
    }
}
