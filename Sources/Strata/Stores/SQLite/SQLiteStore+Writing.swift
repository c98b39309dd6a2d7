import Foundation

/// Writing a save: one write transaction, optimistic locking in each statement, uniqueness
/// constraints checked against the rows the transaction sees, and the relationships that live
/// outside a row's own columns (join tables, positions in ordered to-many relationships).
extension SQLiteStore {
    /// Core Data's ordering keys: spaced by 1024, the first 2048 (schema page §8).
    static func orderKey(_ position: Int) -> Int64 { Int64(2048 + 1024 * position) }

    func writeChanges(_ changes: ChangeSet) throws -> [ManagedObjectID: Int64] {
        guard let writer else {
            throw PersistenceError(
                .storeNotFound, objectIDs: Array(changes.updated.keys) + Array(changes.inserted.keys), "the store \(identifier) is read-only")
        }
        return try sqlite { try writer.writeTransaction { try write(changes, connection: writer) } }
    }

    private func write(_ changes: ChangeSet, connection: SQLiteConnection) throws -> [ManagedObjectID: Int64] {
        var versions: [ManagedObjectID: Int64] = [:]
        var conflicts: [ManagedObjectID] = []
        var constraintConflicts: [ConstraintConflict] = []
        let recordsHistory = tracksPersistentHistory
        var history = HistoryDetails()

        // Deletes first: a value a deleted object held under a uniqueness constraint is free for
        // an object this save inserts.
        for (id, version) in changes.deleted {
            let (entity, reference) = try place(of: id)
            if recordsHistory { history.tombstones[id] = try tombstoneValues(of: entity, reference: reference, connection: connection) }
            try connection.statement("DELETE FROM \(entity.table) WHERE Z_PK = ? AND Z_OPT = ?").run([.integer(reference), .integer(version)])
            if connection.changes == 0 { conflicts.append(id) }
            for toMany in entity.toManys {
                guard case .joinTable(let table, let own, _, _, _, _) = toMany.storage else { continue }
                try connection.statement("DELETE FROM \(table) WHERE \(own) = ?").run([.integer(reference)])
            }
        }
        // Each entity's statements, prepared once per save rather than looked up per row.
        var statements: [String: SQLiteStatement] = [:]
        func statement(_ sql: String) throws -> SQLiteStatement {
            if let statement = statements[sql] { return statement }
            let statement = try connection.statement(sql)
            statements[sql] = statement
            return statement
        }
        for (id, row) in changes.updated {
            let (entity, reference) = try place(of: id)
            if let conflict = try uniquenessConflict(of: id, row: row, entity: entity, reference: reference, connection: connection) {
                constraintConflicts.append(conflict)
                continue
            }
            // Only the columns that changed, when the row it started from is known: an unchanged
            // indexed column then costs its index nothing, and Core Data writes no more either.
            let changed = changes.committed[id].map { changedColumns(of: row, from: $0, entity: entity) }
            if recordsHistory, let before = try changes.committed[id] ?? readRow(of: entity, reference: reference, connection: connection) {
                history.updatedProperties[id] = HistoryRecorder.changedProperties(from: .row(before), to: row, layout: entity.layout)
            }
            let update = try statement(changed.map { updateSQL(of: entity, columns: $0) } ?? entity.updateSQL)
            try update.reset()
            try update.bind(.integer(row.version + 1), at: 1)
            let next = try bind(row, of: entity, columns: changed, to: update, from: 2)
            try update.bind(.integer(reference), at: next)
            try update.bind(.integer(row.version), at: next + 1)
            while try update.step() {}
            if connection.changes == 0 { conflicts.append(id) }
            versions[id] = row.version + 1
        }
        // Inserts in reference order: of two new objects that clash, the later-numbered one is
        // the one reported, as on the other stores.
        for (id, row) in changes.inserted.sorted(by: { ($0.key.referenceNumber ?? 0) < ($1.key.referenceNumber ?? 0) }) {
            let (entity, reference) = try place(of: id)
            if let conflict = try uniquenessConflict(of: id, row: row, entity: entity, reference: reference, connection: connection) {
                constraintConflicts.append(conflict)
                continue
            }
            // An object written back after another save deleted it goes on above the version its
            // context read, so that a context holding an older one meets a conflict.
            let version = row.version > 0 ? row.version + 1 : 1
            let insert = try statement(entity.insertSQL)
            do {
                try insert.reset()
                try insert.bind(.integer(reference), at: 1)
                try insert.bind(.integer(Int64(entity.number)), at: 2)
                try insert.bind(.integer(version), at: 3)
                _ = try bind(row, of: entity, to: insert, from: 4)
                while try insert.step() {}
            } catch let error as SQLiteError where error.extendedCode == 1555 {
                conflicts.append(id)  // SQLITE_CONSTRAINT_PRIMARYKEY: another save stored the object first
                continue
            }
            versions[id] = version
        }
        guard conflicts.isEmpty else { throw PersistenceError.changedSinceRead(conflicts) }
        guard constraintConflicts.isEmpty else {
            throw PersistenceError(
                .constraintConflict, objectIDs: constraintConflicts.flatMap(\.conflictingObjectIDs),
                "\(constraintConflicts.count) uniqueness constraint(s) broken: " + constraintConflicts.map(\.description).joined(separator: "; "),
                constraintConflicts: constraintConflicts)
        }
        for (id, row) in changes.inserted {
            let (entity, reference) = try place(of: id)
            if entity.writesToManys { try writeToManys(of: row, entity: entity, reference: reference, connection: connection) }
        }
        for (id, row) in changes.updated where changes.inserted[id] == nil {
            let (entity, reference) = try place(of: id)
            if entity.writesToManys { try writeToManys(of: row, entity: entity, reference: reference, connection: connection) }
        }
        if recordsHistory { try recordHistory(of: changes, details: history, connection: connection) }
        try writeMetadataIfChanged()
        return versions
    }

    /// The table mapping and primary key of a saved object.
    private func place(of id: ManagedObjectID) throws -> (CoreDataSQLiteMapping.Entity, Int64) {
        guard let entity = mapping.entities[id.entityName], let reference = referenceObject(for: id) else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "\(id) is not an object of the store \(identifier)")
        }
        return (entity, reference)
    }

    /// Which written columns of `row` differ from `committed`: positions in
    /// ``CoreDataSQLiteMapping/Entity/storedAttributeIndices``, then in `toOneSlots` (offset by
    /// the stored attributes' count).
    private func changedColumns(of row: Row, from committed: Row, entity: CoreDataSQLiteMapping.Entity) -> [Int] {
        var changed: [Int] = []
        for (index, position) in entity.storedAttributeIndices.enumerated() {
            let slot = entity.attributeSlots[position]
            if row.attributes[slot] != committed.attributes[slot] { changed.append(index) }
        }
        for (index, slot) in entity.toOneSlots.enumerated() where row.relationships[slot] != committed.relationships[slot] {
            changed.append(entity.storedAttributeIndices.count + index)
        }
        return changed
    }

    /// `UPDATE` of `Z_OPT` and the given written columns only.
    private func updateSQL(of entity: CoreDataSQLiteMapping.Entity, columns: [Int]) -> String {
        var assignments = ["Z_OPT = ?"]
        for index in columns {
            if index < entity.storedAttributeIndices.count {
                assignments.append("\(entity.attributes[entity.storedAttributeIndices[index]].column) = ?")
            } else {
                let toOne = entity.toOnes[index - entity.storedAttributeIndices.count]
                assignments.append("\(toOne.column) = ?")
                if let entityColumn = toOne.entityColumn { assignments.append("\(entityColumn) = ?") }
            }
        }
        return "UPDATE \(entity.table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
    }

    /// Binds a row's written columns from parameter `index` on: `columns` (positions as
    /// ``changedColumns(of:from:entity:)`` gives them; every written column by default, in
    /// ``CoreDataSQLiteMapping/Entity/insertSQL``'s order after `Z_PK, Z_ENT, Z_OPT`): stored
    /// attributes, then each to-one's key (and entity number). Derived attributes are never
    /// written: the store keeps them (Core Data's triggers do). Returns the next parameter's index.
    func bind(
        _ row: Row, of entity: CoreDataSQLiteMapping.Entity, columns: [Int]? = nil, to statement: SQLiteStatement, from index: Int32
    ) throws -> Int32 {
        let columns = columns ?? entity.writtenColumns
        var index = index
        for column in columns {
            if column < entity.storedAttributeIndices.count {
                let position = entity.storedAttributeIndices[column]
                try statement.bind(
                    CoreDataSQLiteValues.encode(row.attributes[entity.attributeSlots[position]], allowsExternalStorage: entity.attributeStoresExternally[position]),
                    at: index)
                index += 1
            } else {
                let position = column - entity.storedAttributeIndices.count
                guard case .toOne(let target) = row.relationships[entity.toOneSlots[position]] else {
                    preconditionFailure("a to-one relationship's slot holds a to-many value")
                }
                try statement.bind(target?.referenceNumber.map(SQLiteValue.integer) ?? .null, at: index)
                index += 1
                if entity.toOneHasEntityColumn[position] {
                    try statement.bind(target.flatMap { mapping.entities[$0.entityName] }.map { .integer(Int64($0.number)) } ?? .null, at: index)
                    index += 1
                }
            }
        }
        return index
    }

    /// Another stored object with this object's values for one of its uniqueness constraints, if
    /// any. Objects without a value for every constrained attribute never clash.
    private func uniquenessConflict(
        of id: ManagedObjectID, row: Row, entity: CoreDataSQLiteMapping.Entity, reference: Int64, connection: SQLiteConnection
    ) throws -> ConstraintConflict? {
        for constraint in entity.layout.uniquenessConstraints {
            let columns = constraint.slots.compactMap { slot in entity.attributes.first { $0.slot == slot } }
            guard columns.count == constraint.slots.count, constraint.slots.allSatisfy({ row.attributes[$0] != nil }) else { continue }
            let test = columns.map { "\($0.column) = ?" }.joined(separator: " AND ")
            let values = columns.map { CoreDataSQLiteValues.encode(row.attributes[$0.slot], for: $0.attribute) }
            var other: ManagedObjectID?
            try connection.statement("SELECT Z_PK, Z_ENT FROM \(entity.table) WHERE \(test) AND Z_PK != ? LIMIT 1")
                .forEachRow(values + [.integer(reference)]) { statement in
                    let name = mapping.entityNames[Int(statement.int64(1))] ?? entity.layout.name
                    other = objectID(entity: name, reference: statement.int64(0))
                }
            if let other { return ConstraintConflict(constraint: constraint.names, conflictingObjectIDs: [id], storeObjectID: other) }
        }
        return nil
    }

    /// Join-table links and ordering keys of a saved object's to-many relationships: the
    /// links it no longer has go, the ones it has are written with their positions.
    private func writeToManys(of row: Row, entity: CoreDataSQLiteMapping.Entity, reference: Int64, connection: SQLiteConnection) throws {
        for toMany in entity.toManys {
            let targets = row.relationships[toMany.slot].objectIDs
            switch toMany.storage {
            case .inverseForeignKey(let table, _, let order):
                guard let order else { continue }  // the targets' own rows hold the key
                let statement = try connection.statement("UPDATE \(table) SET \(order) = ? WHERE Z_PK = ?")
                for (position, target) in targets.enumerated() {
                    guard let key = target.referenceNumber else { continue }
                    try statement.run([.integer(Self.orderKey(position)), .integer(key)])
                }
            case .joinTable(let table, let own, let other, let order, _, _):
                var stale: Set<Int64> = []
                try connection.statement("SELECT \(other) FROM \(table) WHERE \(own) = ?").forEachRow([.integer(reference)]) {
                    _ = stale.insert($0.int64(0))
                }
                let keys = targets.compactMap(\.referenceNumber)
                stale.subtract(keys)
                let remove = try connection.statement("DELETE FROM \(table) WHERE \(own) = ? AND \(other) = ?")
                for key in stale { try remove.run([.integer(reference), .integer(key)]) }
                if let order {
                    let upsert = try connection.statement(
                        "INSERT INTO \(table) (\(own), \(other), \(order)) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET \(order) = excluded.\(order)")
                    for (position, key) in keys.enumerated() {
                        try upsert.run([.integer(reference), .integer(key), .integer(Self.orderKey(position))])
                    }
                } else {
                    let insert = try connection.statement("INSERT OR IGNORE INTO \(table) (\(own), \(other)) VALUES (?, ?)")
                    for key in keys { try insert.run([.integer(reference), .integer(key)]) }
                }
            }
        }
    }
}
