import Foundation

/// Batch deletes in SQL, when the delete rules translate to statements: the rows go in one
/// `DELETE`, and each nullify rule is one `UPDATE` of the other side (a key set to NULL, or only
/// `Z_OPT` moved on for an object whose to-many lost members, as the general path writes it).
/// A cascade, a deny, a join table, or a nullify that would empty a required to-one takes the
/// general path, on rows, which gives the same store.
extension SQLiteStore {
    /// A statement a nullify rule makes of the other side of a deleted object's relationship.
    private struct Nullify {
        /// The other side's table, and the SQL that updates it (`RETURNING Z_PK, Z_ENT`).
        let table: String
        let sql: String
        /// The property of the other side the update changes, for persistent history.
        let property: String
        /// When the other side's to-one is required: SQL true when an object not deleted points at one that is.
        let requiredCheck: String?
    }

    private static let deletedTable = "strata_batch_deleted"
    private static let touchedTable = "strata_batch_touched"

    /// Deletes what the request selects in SQL, with its nullify rules, and records it in
    /// persistent history; returns the IDs deleted, or `nil` when the request or the model's
    /// delete rules do not translate (nothing was written then).
    package func batchDelete(_ request: BatchDeleteRequest, names: [String], author: String?, contextName: String?) throws -> [ManagedObjectID]? {
        guard let writer, request.objectIDs == nil else { return nil }
        var selections: [(entity: CoreDataSQLiteMapping.Entity, condition: SQLFetchCondition)] = []
        var nullifies: [Nullify] = []
        for name in names {
            guard let entity = mapping.entities[name] else { return nil }
            if entity.layout.entity.isAbstract { continue }
            guard let condition = exactCondition(request.predicate, for: entity), let rules = nullifyStatements(of: entity) else { return nil }
            selections.append((entity, condition))
            nullifies += rules
        }
        guard let table = selections.first?.entity.table, selections.allSatisfy({ $0.entity.table == table }) else { return nil }
        let deleted = Self.deletedTable, touched = Self.touchedTable
        return try sqlite {
            try writer.writeTransaction { () -> [ManagedObjectID]? in
                try writer.execute("CREATE TEMP TABLE IF NOT EXISTS \(deleted) (pk INTEGER PRIMARY KEY, ent INTEGER)")
                try writer.execute("CREATE TEMP TABLE IF NOT EXISTS \(touched) (tbl TEXT, pk INTEGER, PRIMARY KEY (tbl, pk))")
                try writer.execute("DELETE FROM \(deleted); DELETE FROM \(touched)")
                for (entity, condition) in selections {
                    try writer.statement("INSERT INTO \(deleted) SELECT t.Z_PK, t.Z_ENT FROM \(entity.table) t WHERE t.Z_ENT = ? AND (\(condition.sql))")
                        .run([.integer(Int64(entity.number))] + condition.bindings)
                }
                // Refused as the general path refuses it, before anything is written.
                for nullify in nullifies {
                    if let check = nullify.requiredCheck, try writer.scalar("SELECT EXISTS (\(check))") == .integer(1) { return nil }
                }
                var ids: [ManagedObjectID] = []
                try writer.statement("SELECT pk, ent FROM \(deleted) ORDER BY pk").forEachRow { row in
                    if let name = mapping.entityNames[Int(row.int64(1))] { ids.append(objectID(entity: name, reference: row.int64(0))) }
                }
                var history = HistoryDetails()
                if tracksPersistentHistory {
                    for id in ids {
                        guard let entity = mapping.entities[id.entityName], let reference = id.referenceNumber else { continue }
                        history.tombstones[id] = try tombstoneValues(of: entity, reference: reference, connection: writer)
                    }
                }
                // Each object of the other side is written once, whatever number of rules touch it:
                // a statement leaves out the rows an earlier one wrote.
                let remember = try writer.statement("INSERT OR IGNORE INTO \(touched) (tbl, pk) VALUES (?, ?)")
                for nullify in nullifies {
                    var written: [Int64] = []
                    try writer.statement(nullify.sql).forEachRow { row in
                        written.append(row.int64(0))
                        guard let name = mapping.entityNames[Int(row.int64(1))] else { return }
                        history.updatedProperties[objectID(entity: name, reference: row.int64(0)), default: []].insert(nullify.property)
                    }
                    for key in written { try remember.run([.text(nullify.table), .integer(key)]) }
                }
                try writer.execute("DELETE FROM \(table) WHERE Z_PK IN (SELECT pk FROM \(deleted))")
                if tracksPersistentHistory, !ids.isEmpty || !history.updatedProperties.isEmpty {
                    var changes = ChangeSet()
                    changes.author = author
                    changes.contextName = contextName
                    for id in ids { changes.deleted[id] = 0 }
                    for id in history.updatedProperties.keys {
                        changes.updated[id] = Row(emptyFor: mapping.entities[id.entityName]?.layout ?? selections[0].entity.layout)
                    }
                    try recordHistory(of: changes, details: history, connection: writer)
                }
                try writer.execute("DELETE FROM \(deleted); DELETE FROM \(touched)")
                return ids
            }
        }
    }

    /// The statements the nullify rules of `entity`'s relationships make; `nil` when a rule does
    /// not translate (a cascade, a deny, a join table, an inverse without a column of its own).
    private func nullifyStatements(of entity: CoreDataSQLiteMapping.Entity) -> [Nullify]? {
        let layout = entity.layout
        let deleted = Self.deletedTable, touched = Self.touchedTable
        var statements: [Nullify] = []
        for (slot, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            switch relationship.deleteRule {
            case .noAction: continue
            case .cascade, .deny: return nil
            case .nullify: break
            }
            guard let inverseSlot = layout.inverseSlots[slot], let destination = mapping.entities[relationship.destinationEntityName] else { continue }
            let inverse = destination.layout.relationships[inverseSlot]
            // The other side's rows (of the destination's table) that are not deleted with this one.
            func kept(_ table: String) -> String {
                table == entity.table ? "Z_PK NOT IN (SELECT pk FROM \(deleted))" : "1"
            }
            // …and that an earlier statement has not written (a version moves on once per save).
            func untouched(_ table: String) -> String {
                "Z_PK NOT IN (SELECT pk FROM \(touched) WHERE tbl = '\(table)') AND \(kept(table))"
            }
            if let toOne = entity.toOnes.first(where: { $0.slot == slot }) {
                let pointed = "SELECT t.\(toOne.column) FROM \(entity.table) t WHERE t.Z_PK IN (SELECT pk FROM \(deleted)) AND t.\(toOne.column) IS NOT NULL"
                if inverse.isToMany {
                    // The target's to-many loses members: its row only moves on a version.
                    statements.append(
                        Nullify(
                            table: toOne.destinationTable,
                            sql: "UPDATE \(toOne.destinationTable) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(pointed)) AND \(untouched(toOne.destinationTable)) RETURNING Z_PK, Z_ENT",
                            property: inverse.name, requiredCheck: nil))
                } else {
                    // One to one: the target's own key points back.
                    guard let back = destination.toOnes.first(where: { $0.slot == inverseSlot }) else { return nil }
                    statements.append(
                        nullifying(back, in: destination.table, where: "\(back.column) IN (SELECT pk FROM \(deleted)) AND \(kept(destination.table))",
                                   property: inverse.name, required: !inverse.isOptional))
                }
            } else if let toMany = entity.toManys.first(where: { $0.slot == slot }) {
                guard case .inverseForeignKey(let table, let column, _) = toMany.storage,
                    let back = destination.toOnes.first(where: { $0.slot == inverseSlot }), back.column == column
                else { return nil }
                statements.append(
                    nullifying(back, in: table, where: "\(column) IN (SELECT pk FROM \(deleted)) AND \(kept(table))",
                               property: inverse.name, required: !inverse.isOptional))
            } else {
                return nil
            }
        }
        return statements
    }

    /// The statement that empties a to-one's key (and its entity and order columns) where `condition` holds.
    private func nullifying(
        _ toOne: CoreDataSQLiteMapping.ToOneColumn, in table: String, where condition: String, property: String, required: Bool
    ) -> Nullify {
        let columns = [toOne.column] + [toOne.entityColumn, toOne.orderColumn].compactMap { $0 }
        let version = "Z_OPT = CASE WHEN Z_PK IN (SELECT pk FROM \(Self.touchedTable) WHERE tbl = '\(table)') THEN Z_OPT ELSE Z_OPT + 1 END"
        let sets = (columns.map { "\($0) = NULL" } + [version]).joined(separator: ", ")
        return Nullify(
            table: table, sql: "UPDATE \(table) SET \(sets) WHERE \(condition) RETURNING Z_PK, Z_ENT", property: property,
            requiredCheck: required ? "SELECT 1 FROM \(table) WHERE \(condition)" : nil)
    }
}
