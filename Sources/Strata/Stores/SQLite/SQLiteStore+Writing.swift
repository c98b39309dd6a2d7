import Foundation

/// Writing a save: one write transaction (`BEGIN IMMEDIATE`), the rows written by the relational
/// core (``RelationalSaveWriter``), persistent history and metadata in the same transaction.
extension SQLiteStore {
    func writeChanges(_ changes: ChangeSet) throws -> [ManagedObjectID: Int64] {
        guard let writer else {
            throw PersistenceError(
                .readOnlyStore, objectIDs: Array(changes.updated.keys) + Array(changes.inserted.keys), "the store \(identifier) is read-only")
        }
        return try sqlite { try writer.writeTransaction { try write(changes, connection: writer) } }
    }

    private func write(_ changes: ChangeSet, connection: SQLiteConnection) throws -> [ManagedObjectID: Int64] {
        // What history records of the rows before they change: read in the save's transaction,
        // before its first write.
        var history = HistoryDetails()
        if tracksPersistentHistory {
            for id in changes.deleted.keys {
                guard let entity = mapping.entities[id.entityName], let reference = referenceObject(for: id) else { continue }
                history.tombstones[id] = try tombstoneValues(of: entity, reference: reference, connection: connection)
            }
            for (id, row) in changes.updated {
                guard let entity = mapping.entities[id.entityName], let reference = referenceObject(for: id),
                    let before = try changes.committed[id] ?? readRow(of: entity, reference: reference, connection: connection)
                else { continue }
                history.updatedProperties[id] = HistoryRecorder.changedProperties(from: .row(before), to: row, layout: entity.layout)
            }
        }
        let writer = RelationalSaveWriter(mapping: mapping, connection: SQLiteRelationalConnection(connection), store: self)
        let versions = try writer.write(changes.rowChanges)
        if tracksPersistentHistory { try recordHistory(of: changes, details: history, connection: connection) }
        try writeMetadataIfChanged()
        return versions
    }
}
