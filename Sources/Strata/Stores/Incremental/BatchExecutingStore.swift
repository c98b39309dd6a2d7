/// An incremental store that runs batch requests in its own language — the SQLite and PostgreSQL
/// stores, in SQL (``RelationalBatchUpdate``) — declared by conforming. The coordinator hands a
/// batch request to its one store when the store declares this; each method returns `nil`,
/// having written nothing, when the request does not translate exactly, and the request then
/// takes the general path (rows read, changed and saved as any save), which gives the same store.
///
/// Each is called on the coordinator's queue, as every write; what it writes is one transaction
/// with its persistent history, recorded under `author` and `contextName`.
package protocol BatchExecutingStore: IncrementalStore {
    /// Updates what the request selects (of the entities `names`, each on its own); returns the
    /// IDs of the objects changed.
    func batchUpdate(_ request: BatchUpdateRequest, names: [String], author: String?, contextName: String?) throws -> [ManagedObjectID]?

    /// Deletes what the request selects (of the entities `names`), with the delete rules;
    /// returns the IDs deleted.
    func batchDelete(_ request: BatchDeleteRequest, names: [String], author: String?, contextName: String?) throws -> [ManagedObjectID]?

    /// Inserts `rows` of `layout`'s entity; returns their IDs, in order.
    func batchInsert(_ rows: [Row], layout: EntityLayout, author: String?, contextName: String?) throws -> [ManagedObjectID]?
}
