import Foundation

/// Batch updates in SQL (``RelationalBatchUpdate``), in one write transaction with their
/// persistent history.
extension SQLiteStore {
    /// Updates what the request selects in SQL and records it in persistent history; returns the
    /// IDs of the objects changed, or `nil` when the request does not translate exactly (nothing
    /// was written then). On the coordinator's queue, as every write.
    package func batchUpdate(
        _ request: BatchUpdateRequest, names: [String], author: String?, contextName: String?
    ) throws -> [ManagedObjectID]? {
        guard let writer,
            let update = try RelationalBatchUpdate(request, names: names, mapping: mapping, store: identifier, dialect: .sqlite)
        else { return nil }
        restartLogIfDue(writer: writer)
        return try sqlite {
            try writer.writeTransaction { () -> [ManagedObjectID]? in
                guard let changed = try update.run(on: SQLiteRelationalConnection(writer)) else { return nil }
                if tracksPersistentHistory, !changed.isEmpty {
                    var changes = HistoryChanges()
                    for id in changed { changes.updated[id] = update.properties }
                    try recordHistory(changes, of: SaveHistory(author: author, contextName: contextName, updatedProperties: [:]), connection: writer)
                }
                return changed
            }
        }
    }
}
