/// Changed rows of one table that a save updates in the same columns, handed to the connection
/// at once so that a driver that binds arrays can update them in one statement per batch
/// instead of one per row. Each row is checked as alone: it changes only where the stored
/// version (`Z_OPT`) is still the one its context read.
package struct RelationalUpdateBatch {
    /// The table, undecorated (the dialect quotes it).
    package let table: String
    /// The columns set: `Z_OPT`, then the changed written columns, undecorated.
    package let columns: [String]
    /// The statement that updates one row (``rows``' values bound), changing nothing when the
    /// stored version differs: what a driver runs per row.
    package let rowSQL: String
    /// Each row's values, with its object: the new values of ``columns``, then the row's key
    /// (`Z_PK`), then the version its context read.
    package var rows: [(values: [SQLValue], object: ManagedObjectID)] = []
}

extension RelationalConnection {
    /// Updates each row with ``RelationalUpdateBatch/rowSQL``: the way of a driver that binds no
    /// arrays. A row whose stored version differs changes nothing, and its object is among
    /// those ``finishWrites()`` returns.
    package func updateRowByRow(_ batch: RelationalUpdateBatch) throws {
        for (values, object) in batch.rows { try write(batch.rowSQL, values, object: object) }
    }
}
