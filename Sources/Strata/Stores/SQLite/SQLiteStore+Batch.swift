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
        return try sqlite {
            try writer.writeTransaction { () -> [ManagedObjectID]? in
                guard let changed = try update.run(on: SQLiteRelationalConnection(writer)) else { return nil }
                if tracksPersistentHistory, !changed.isEmpty {
                    var changes = ChangeSet()
                    changes.author = author
                    changes.contextName = contextName
                    var details = HistoryDetails()
                    for id in changed {
                        guard let layout = mapping.entities[id.entityName]?.layout else { continue }
                        changes.updated[id] = Row(emptyFor: layout)
                        details.updatedProperties[id] = update.properties
                    }
                    try recordHistory(of: changes, details: details, connection: writer)
                }
                return changed
            }
        }
    }
}
