import Foundation
import Strata

/// Batch requests in SQL, as on the SQLite store: updates through ``RelationalBatchUpdate``,
/// deletes through ``RelationalBatchDelete``, inserts through the save writer without the
/// object graph. Each is one save of the store's
/// (one transaction, retried on conflicts with other servers, numbered, announced, with its
/// persistent history).
extension PostgresStore: BatchExecutingStore {
    package func batchUpdate(_ request: BatchUpdateRequest, names: [String], author: String?, contextName: String?) throws -> [ManagedObjectID]? {
        guard let update = try RelationalBatchUpdate(request, names: names, mapping: mapping, store: identifier, dialect: dialect) else { return nil }
        return try saving([]) { connection, _ -> ([ManagedObjectID]?, Int64?) in
            try lockSchemaForSave(connection)
            let session = relationalSession(connection)
            guard let changed = try update.run(on: session) else { return (nil, nil) }
            guard !changed.isEmpty else { return (changed, nil) }
            var changes = RowChanges()
            for id in changed {
                guard let layout = mapping.entities[id.entityName]?.layout else { continue }
                changes.updated[id] = Row(emptyFor: layout)
            }
            let history = tracksPersistentHistory
                ? SaveHistory(author: author, contextName: contextName, updatedProperties: Dictionary(uniqueKeysWithValues: changed.map { ($0, update.properties) }))
                : nil
            return (changed, try finishSave(changes, history: history, tombstones: [:], connection: connection))
        }
    }

    package func batchDelete(_ request: BatchDeleteRequest, names: [String], author: String?, contextName: String?) throws -> [ManagedObjectID]? {
        guard let delete = RelationalBatchDelete(request, names: names, mapping: mapping, store: identifier, dialect: dialect) else { return nil }
        return try saving([]) { connection, _ -> ([ManagedObjectID]?, Int64?) in
            try lockSchemaForSave(connection)
            let session = relationalSession(connection)
            guard let ids = try delete.selectObjects(on: session) else { return (nil, nil) }
            var changes = RowChanges()
            for id in ids { changes.deleted[id] = 0 }
            // What history keeps of the deleted objects, read before their rows go.
            let tombstones = tracksPersistentHistory ? try self.tombstones(of: changes.deleted, connection: connection) : [:]
            let updated = try delete.delete(on: session)
            guard !ids.isEmpty || !updated.isEmpty else { return (ids, nil) }
            for id in updated.keys {
                guard let layout = mapping.entities[id.entityName]?.layout else { continue }
                changes.updated[id] = Row(emptyFor: layout)
            }
            let history = tracksPersistentHistory ? SaveHistory(author: author, contextName: contextName, updatedProperties: updated) : nil
            return (ids, try finishSave(changes, history: history, tombstones: tombstones, connection: connection))
        }
    }

    /// The rows written as a save writes them, in one transaction, with reference numbers taken
    /// as any save takes them. An entity under a uniqueness constraint takes the general path,
    /// which merges a clash as the request asks.
    package func batchInsert(_ rows: [Row], layout: EntityLayout, author: String?, contextName: String?) throws -> [ManagedObjectID]? {
        guard mapping.entities[layout.name] != nil, layout.uniquenessConstraints.isEmpty else { return nil }
        // Temporary IDs made permanent, as a save's new objects are (obtainPermanentIDs).
        let temporary = rows.map { _ in ManagedObjectID.temporary(in: .make(store: nil, entityName: layout.name)) }
        let ids = try takeReferenceNumbers(for: temporary)
        var changes = RowChanges()
        changes.inserted.reserveCapacity(rows.count)
        for (id, row) in zip(ids, rows) { changes.inserted[id] = row }
        let history = tracksPersistentHistory ? SaveHistory(author: author, contextName: contextName, updatedProperties: [:]) : nil
        let added = try saving(ids) { connection, attempt in
            try lockSchemaForSave(connection)
            let session = relationalSession(connection, checksWrittenKeys: attempt.checksWrittenKeys)
            _ = try RelationalSaveWriter(mapping: mapping, connection: session, store: self).write(changes)
            return (session.rowsAdded, try finishSave(changes, history: history, tombstones: [:], connection: connection))
        }
        analyzeGrownTables(added)
        return ids
    }
}
