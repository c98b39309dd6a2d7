/// A store that reads a large fetch's rows straight into columns (``StoredColumns``): its
/// objects then read their values there until they change, as an atomic store's objects read
/// their table's, and a fetch of 100,000 objects makes no row, and no to-many fault, per
/// object. The columns live while any of their objects reads from them: one object kept of
/// a large fetch keeps them all, until it changes or is refreshed. The SQL stores do so; any
/// other store answers with rows (``RowReadingStore/rows(ofEntity:matching:sortedBy:offset:limit:in:)``).
package protocol ColumnReadingStore: RowReadingStore {
    /// What ``RowReadingStore/rows(ofEntity:matching:sortedBy:offset:limit:in:)`` reads, the
    /// same rows in the same order, each where the store put it: a row of its own, or a
    /// position in columns; `nil` where that gives `nil`.
    func storedRows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, stored: StoredRow)]?
}

/// What a ``ColumnReadingStore``'s reads share.
package enum ColumnReads {
    /// How many rows a read decodes into rows before it goes on in columns: columns cost a few
    /// dozen allocations of their own, more than a lookup's one row does. Task-local, so that a
    /// test can read every row into columns (0) — the whole class of generated models, whose
    /// round trips save two or three objects of an entity.
    @TaskLocal package static var rowsBeforeColumns = 32
}
