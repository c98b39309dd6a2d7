import Foundation

/// Batch deletes in SQL (``RelationalBatchDelete``), in one write transaction with their
/// persistent history (each deleted object's tombstone read before its row goes).
extension SQLiteStore {
    /// Deletes what the request selects in SQL, with its nullify rules, and records it in
    /// persistent history; returns the IDs deleted, or `nil` when the request or the model's
    /// delete rules do not translate (nothing was written then).
    package func batchDelete(_ request: BatchDeleteRequest, names: [String], author: String?, contextName: String?) throws -> [ManagedObjectID]? {
        guard let writer, let delete = RelationalBatchDelete(request, names: names, mapping: mapping, store: identifier, dialect: .sqlite) else {
            return nil
        }
        restartLogIfDue(writer: writer)
        return try sqlite {
            try writer.writeTransaction { () -> [ManagedObjectID]? in
                let connection = SQLiteRelationalConnection(writer)
                guard let ids = try delete.selectObjects(on: connection) else { return nil }
                var history = HistoryChanges()
                if tracksPersistentHistory {
                    for id in ids {
                        guard let entity = mapping.entities[id.entityName], let reference = id.referenceNumber else { continue }
                        history.deleted[id] = try tombstoneValues(of: entity, reference: reference, connection: writer) ?? []
                    }
                }
                // The objects whose relationships to the deleted ones were nullified.
                history.updated = try delete.delete(on: connection)
                if tracksPersistentHistory {
                    try recordHistory(history, of: SaveHistory(author: author, contextName: contextName, updatedProperties: [:]), connection: writer)
                }
                return ids
            }
        }
    }
}
