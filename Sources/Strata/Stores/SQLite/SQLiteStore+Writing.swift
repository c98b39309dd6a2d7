import Foundation

/// Writing a save: one write transaction (`BEGIN IMMEDIATE`), the rows written by the relational
/// core (``RelationalSaveWriter``), persistent history and metadata in the same transaction.
extension SQLiteStore: RowSavingStore {
    package func save(_ changes: RowChanges, recording history: SaveHistory?) throws -> [ManagedObjectID: Int64] {
        guard let writer else {
            throw PersistenceError(
                .readOnlyStore, objectIDs: Array(changes.updated.keys) + Array(changes.inserted.keys), "the store \(identifier) is read-only")
        }
        restartLogIfDue(writer: writer)
        return try sqlite { try writer.writeTransaction { try write(changes, recording: history, connection: writer) } }
    }

    /// Writes the metadata if it changed since it was last written (metadata changed while the
    /// store is added waits for a save); a read-only store has nothing to write.
    package func saveWithoutChanges() throws {
        try sqlite { try writeMetadataIfChanged() }
    }

    private func write(_ changes: RowChanges, recording history: SaveHistory?, connection: SQLiteConnection) throws -> [ManagedObjectID: Int64] {
        // The tombstones history keeps of deleted objects: read in the save's transaction, before
        // its first write.
        var recorded = HistoryChanges()
        if let history {
            for id in changes.deleted.keys {
                guard let entity = mapping.entities[id.entityName], let reference = referenceObject(for: id) else { continue }
                recorded.deleted[id] = try tombstoneValues(of: entity, reference: reference, connection: connection) ?? []
            }
            recorded.inserted = Array(changes.inserted.keys)
            for id in changes.updated.keys where changes.inserted[id] == nil {
                recorded.updated[id] = history.updatedProperties[id] ?? []
            }
        }
        let writer = RelationalSaveWriter(mapping: mapping, connection: SQLiteRelationalConnection(connection), store: self)
        let versions = try writer.write(changes)
        if let history { try recordHistory(recorded, of: history, connection: connection) }
        try writeMetadataIfChanged()
        return versions
    }
}
