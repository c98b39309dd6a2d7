import Foundation

/// Batch inserts straight into the table: the rows the request made, bound into one prepared
/// `INSERT` in one transaction, with reference numbers from `Z_PRIMARYKEY` as any save takes
/// them. An entity under a uniqueness constraint takes the general path, which checks it.
extension SQLiteStore {
    /// Inserts `rows` of `layout` and records them in persistent history; returns their IDs, or
    /// `nil` when the entity needs the general path (nothing was written then).
    package func batchInsert(_ rows: [Row], layout: EntityLayout, author: String?, contextName: String?) throws -> [ManagedObjectID]? {
        guard let writer, let entity = mapping.entities[layout.name], layout.uniquenessConstraints.isEmpty else { return nil }
        let references = try takeReferenceNumbers(rootEntity: layout.rootEntityName, count: rows.count)
        let ids = references.map { objectID(entity: layout.name, reference: $0) }
        restartLogIfDue(writer: writer)
        try sqlite {
            try writer.writeTransaction {
                let insert = try writer.statement(entity.insertSQL)
                let number = SQLValue.integer(Int64(entity.number))
                for (reference, row) in zip(references, rows) {
                    try insert.run([.integer(reference), number, .integer(1)] + mapping.writtenValues(of: row, entity: entity, columns: entity.writtenColumns))
                }
                if tracksPersistentHistory {
                    try recordHistory(
                        HistoryChanges(inserted: ids), of: SaveHistory(author: author, contextName: contextName, updatedProperties: [:]),
                        connection: writer)
                }
                try writeMetadataIfChanged()
            }
        }
        return ids
    }
}
