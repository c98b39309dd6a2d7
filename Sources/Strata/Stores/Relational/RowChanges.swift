/// The rows of one save, as a store that writes rows (not nodes) takes them: what the
/// relational core (``RelationalSaveWriter``) writes, for the SQLite and PostgreSQL stores alike.
package struct RowChanges: Sendable {
    /// New objects; their rows' versions are ignored (a new row starts at version 1, or one above
    /// the version an object written back after another save deleted it had).
    package var inserted: [ManagedObjectID: Row]
    /// Changed objects; each row's `version` is the version the context read.
    package var updated: [ManagedObjectID: Row]
    /// Deleted objects, with the version the context read.
    package var deleted: [ManagedObjectID: Int64]
    /// For updated objects, when the context has it: the stored row their changes start from (of
    /// the same version), so that only the columns that differ are written.
    package var committed: [ManagedObjectID: Row]

    package init(
        inserted: [ManagedObjectID: Row] = [:], updated: [ManagedObjectID: Row] = [:], deleted: [ManagedObjectID: Int64] = [:],
        committed: [ManagedObjectID: Row] = [:]
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.committed = committed
    }
}

extension ChangeSet {
    /// The rows a store writes.
    var rowChanges: RowChanges {
        RowChanges(inserted: inserted, updated: updated, deleted: deleted, committed: committed)
    }
}

extension RowChanges {
    /// The rows of a save request's nodes, for a store that writes rows and is handed a save
    /// through the public contract (``IncrementalStore/execute(_:with:)``).
    package init(_ request: SaveChangesRequest, store: IncrementalStore) throws {
        func rows(_ nodes: [IncrementalStoreNode]) throws -> [ManagedObjectID: Row] {
            var rows: [ManagedObjectID: Row] = [:]
            for node in nodes {
                guard let layout = store.managedObjectModel.layout(for: node.objectID.entityName) else {
                    throw PersistenceError(.unknownEntity, objectIDs: [node.objectID], "the model has no entity '\(node.objectID.entityName)'")
                }
                rows[node.objectID] = try store.row(from: node, layout: layout, snapshot: nil)
            }
            return rows
        }
        self.init(inserted: try rows(request.insertedObjects), updated: try rows(request.updatedObjects), deleted: request.deletedObjects)
    }
}
