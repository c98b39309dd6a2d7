import Foundation
import Logging
import PostgresNIO
import Strata

/// Saving: one transaction per save, retried whole on a serialization failure, a deadlock or a
/// uniqueness race with another server; optimistic locking in each statement.
extension PostgresStore {
    /// The SQLSTATEs after which a save is tried again from the start: serialization failure,
    /// deadlock, and a unique index another server's commit filled after this save checked it
    /// (the check then finds the clash on the next attempt, and reports it as a constraint conflict).
    static let retriedStates: Set<String> = ["40001", "40P01", "23505"]

    package func save(_ changes: SaveChangesRequest, recording history: SaveHistory?) throws -> [ManagedObjectID: Int64] {
        guard !isReadOnly else {
            throw PersistenceError(
                .storeNotFound, objectIDs: changes.insertedObjects.map(\.objectID) + changes.updatedObjects.map(\.objectID),
                "the store \(identifier) is read-only")
        }
        var attempt = 1
        while true {
            do {
                let (versions, change) = try withTransaction { connection in try write(changes, history: history, connection: connection) }
                committed(change: change)
                return versions
            } catch let error as PostgresStoreError where error.code == .server && Self.retriedStates.contains(error.sqlState ?? "") {
                forgetWrittenMetadata()
                guard attempt < Self.saveAttempts else {
                    throw PostgresStoreError(
                        .retriesExhausted, sqlState: error.sqlState, "the save failed \(attempt) times on conflicts with other servers' saves: \(error.message)")
                }
                logger.debug("retrying a save", metadata: ["attempt": "\(attempt)", "sqlState": "\(error.sqlState ?? "")"])
                Thread.sleep(forTimeInterval: Double.random(in: 0.002...0.010) * Double(attempt))
                attempt += 1
            } catch let error as PostgresStoreError where error.code == .server {
                forgetWrittenMetadata()
                // A statement may fail on tables another server migrated before the check of
                // `Z_MODEL` at the end says so: the migration is the cause to report.
                if (try? isAtThisModel()) == false { throw Self.migratedElsewhere() }
                throw error
            } catch {
                forgetWrittenMetadata()
                throw error
            }
        }
    }

    /// Whether the store's tables are at this store's model (`Z_MODEL`).
    private func isAtThisModel() throws -> Bool {
        try pool.withConnection { connection in
            try !connection.rows("SELECT 1 FROM \(schema.table("Z_METADATA")) WHERE \"Z_MODEL\" = $1", [.text(modelChecksum)], logger: logger).isEmpty
        }
    }

    /// Writes one save in `connection`'s transaction, with its history when there is one;
    /// returns each object's new version and the save's number.
    private func write(
        _ changes: SaveChangesRequest, history: SaveHistory?, connection: PostgresConnection
    ) throws -> ([ManagedObjectID: Int64], Int64) {
        try lockSchemaForSave(connection)
        let tombstones = history == nil ? [:] : try self.tombstones(of: changes.deletedObjects, connection: connection)
        var versions: [ManagedObjectID: Int64] = [:]
        var conflicts: [ManagedObjectID] = []
        var constraintConflicts: [ConstraintConflict] = []
        var statements = PipelinedStatements(connection: connection, logger: logger)
        // Deletes first: a value a deleted object held under a uniqueness constraint is free for
        // an object this save inserts.
        for (id, version) in changes.deletedObjects.sorted(by: { $0.key.description < $1.key.description }) {
            let (table, reference) = try place(of: id)
            try statements.send(
                "DELETE FROM \(schema.table(table.table)) WHERE \"Z_PK\" = $1 AND \"Z_OPT\" = $2", [.integer(reference), .integer(version)], object: id)
            for toMany in table.toManys {
                guard case .joinTable(let join, let own, _, _, _, _) = toMany.storage else { continue }
                try statements.send("DELETE FROM \(schema.table(join)) WHERE \(PostgresSQL.quoted(own)) = $1", [.integer(reference)])
            }
        }
        for node in changes.updatedObjects {
            let (table, reference) = try place(of: node.objectID)
            if !table.layout.uniquenessConstraints.isEmpty {
                conflicts += try statements.waitForAll()
                if let conflict = try uniquenessConflict(of: node, table: table, reference: reference, connection: connection) {
                    constraintConflicts.append(conflict)
                    continue
                }
            }
            let (columns, values) = writtenColumns(of: node, table: table)
            let assignments = (["\"Z_OPT\""] + columns).enumerated().map { "\($1) = $\($0 + 1)" }
            let count = values.count + 1
            try statements.send(
                "UPDATE \(schema.table(table.table)) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = $\(count + 1) AND \"Z_OPT\" = $\(count + 2)",
                [.integer(node.version + 1)] + values + [.integer(reference), .integer(node.version)], object: node.objectID)
            versions[node.objectID] = node.version + 1
        }
        // Inserts in reference order: of two new objects that clash, the later-numbered one is
        // the one reported, as on the other stores.
        for node in changes.insertedObjects.sorted(by: { ($0.objectID.referenceNumber ?? 0) < ($1.objectID.referenceNumber ?? 0) }) {
            let (table, reference) = try place(of: node.objectID)
            if !table.layout.uniquenessConstraints.isEmpty {
                conflicts += try statements.waitForAll()
                if let conflict = try uniquenessConflict(of: node, table: table, reference: reference, connection: connection) {
                    constraintConflicts.append(conflict)
                    continue
                }
            }
            // An object written back after another save deleted it goes on above the version its
            // context read, so that a context holding an older one meets a conflict.
            let version = node.version > 0 ? node.version + 1 : 1
            let (columns, values) = writtenColumns(of: node, table: table)
            let all = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""] + columns
            // No row inserted: another save stored the object first.
            try statements.send(
                "INSERT INTO \(schema.table(table.table)) (\(all.joined(separator: ", "))) "
                    + "VALUES (\(all.indices.map { "$\($0 + 1)" }.joined(separator: ", "))) ON CONFLICT (\"Z_PK\") DO NOTHING",
                [.integer(reference), .integer(Int64(table.number)), .integer(version)] + values, object: node.objectID)
            versions[node.objectID] = version
        }
        conflicts += try statements.waitForAll()
        guard conflicts.isEmpty else {
            let ids = conflicts.sorted { $0.description < $1.description }
            throw PersistenceError(
                .conflict, objectIDs: ids,
                "\(ids.count) object(s) changed in the store since this context read them: \(ids.map(\.description).joined(separator: ", ")). "
                    + "Nothing was saved; refresh the objects (mergeChanges: true keeps your changes) and save again")
        }
        guard constraintConflicts.isEmpty else {
            throw PersistenceError(
                .constraintConflict, objectIDs: constraintConflicts.flatMap(\.conflictingObjectIDs),
                "\(constraintConflicts.count) uniqueness constraint(s) broken: " + constraintConflicts.map(\.description).joined(separator: "; "),
                constraintConflicts: constraintConflicts)
        }
        for node in changes.insertedObjects + changes.updatedObjects {
            let (table, reference) = try place(of: node.objectID)
            try writeToManys(of: node, table: table, reference: reference, statements: &statements)
        }
        _ = try statements.waitForAll()
        // Taking the next number locks the metadata row until commit, last, so that saves to one
        // store write at once and commit one at a time, in the order of their numbers. After a
        // migration (which this save waited for, if it was running) `Z_MODEL` differs: the save
        // rolls back whatever it wrote.
        guard
            let last = try connection.rows(
                "UPDATE \(schema.table("Z_METADATA")) SET \"Z_CHANGE\" = \"Z_CHANGE\" + 1 WHERE \"Z_MODEL\" = $1 "
                    + "RETURNING \"Z_CHANGE\", to_regclass($2) IS NOT NULL",
                [.text(modelChecksum), .text(schema.table("ACHANGE"))], logger: logger
            ).first?.makeRandomAccess(), let change = try last[0].int64()
        else {
            guard try connection.rows("SELECT 1 FROM \(schema.table("Z_METADATA"))", logger: logger).isEmpty else { throw Self.migratedElsewhere() }
            throw PostgresStoreError(.notAStore, "the store's metadata row is missing from \(location.schema).Z_METADATA")
        }
        if let history {
            try recordHistory(history, of: changes, tombstones: tombstones, statements: &statements)
            _ = try statements.waitForAll()
        } else if try last[1].decode(Bool.self), !pool.isPinned {
            // Another server turned history on after this one added the store: this save would go
            // missing from it. (A migration's copy is no save of the app's, and records none.)
            forceReadOnly(because: Self.historyWithoutTracking)
            throw PersistenceError(
                .storeNotFound, objectIDs: changes.insertedObjects.map(\.objectID) + changes.updatedObjects.map(\.objectID),
                "the store \(identifier) is read-only: \(Self.historyWithoutTracking)")
        }
        try writeMetadataIfChanged(connection)
        try connection.run("SELECT pg_notify($1, $2)", [.text(changeChannel), .text("\(change) \(saverID)")], logger: logger)
        return (versions, change)
    }

    /// Reference numbers from `Z_PRIMARYKEY`'s `Z_MAX` of each hierarchy's root, one statement
    /// per hierarchy outside any save's transaction: never handed out twice, by any server, even
    /// when the save that asked for them fails.
    func takeReferenceNumbers(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
        var byRoot: [Int: [Int]] = [:]  // root entity number → positions in objectIDs
        for (position, id) in objectIDs.enumerated() {
            guard let table = mapping.entities[id.entityName] else {
                throw PersistenceError(.unknownEntity, objectIDs: [id], "the store has no table for the entity '\(id.entityName)'")
            }
            let root = mapping.entities[table.layout.rootEntityName]?.number ?? table.number
            byRoot[root, default: []].append(position)
        }
        var ids = objectIDs
        try pool.withConnection { connection in
            for (root, positions) in byRoot.sorted(by: { $0.key < $1.key }) {
                // Entity numbers are the model's: a store another server migrated numbers its
                // entities anew, and no counter of it is this model's to take.
                guard
                    let last = try connection.rows(
                        "UPDATE \(schema.table("Z_PRIMARYKEY")) SET \"Z_MAX\" = \"Z_MAX\" + $1 WHERE \"Z_ENT\" = $2 "
                            + "AND EXISTS (SELECT 1 FROM \(schema.table("Z_METADATA")) WHERE \"Z_MODEL\" = $3) RETURNING \"Z_MAX\"",
                        [.integer(Int64(positions.count)), .integer(Int64(root)), .text(modelChecksum)], logger: logger
                    ).first?.makeRandomAccess()[0].int64()
                else {
                    guard try !isAtThisModel() else { throw PostgresStoreError(.notAStore, "Z_PRIMARYKEY has no row for entity number \(root)") }
                    throw Self.migratedElsewhere()
                }
                for (offset, position) in positions.enumerated() {
                    ids[position] = objectID(entity: objectIDs[position].entityName, reference: last - Int64(positions.count) + 1 + Int64(offset))
                }
            }
        }
        return ids
    }

    /// The table and primary key of a saved object.
    private func place(of id: ManagedObjectID) throws -> (CoreDataSQLiteMapping.Entity, Int64) {
        guard let table = mapping.entities[id.entityName], let reference = referenceObject(for: id) else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "\(id) is not an object of the store \(identifier)")
        }
        return (table, reference)
    }

    /// The columns a save writes for an object (quoted), with their values: the stored
    /// attributes, then each to-one's key and (where the table has one) its entity number.
    /// Derived attributes are not written.
    private func writtenColumns(of node: IncrementalStoreNode, table: CoreDataSQLiteMapping.Entity) -> ([String], [SQLiteValue]) {
        var columns: [String] = []
        var values: [SQLiteValue] = []
        for column in table.storedAttributes {
            columns.append(PostgresSQL.quoted(column.column))
            values.append(CoreDataSQLiteValues.encode(node.attributeValues[column.attribute.name], for: column.attribute))
        }
        for toOne in table.toOnes {
            let target = node.relatedObjectIDs[table.layout.relationships[toOne.slot].name]?.first
            columns.append(PostgresSQL.quoted(toOne.column))
            values.append(target?.referenceNumber.map(SQLiteValue.integer) ?? .null)
            if let entityColumn = toOne.entityColumn {
                columns.append(PostgresSQL.quoted(entityColumn))
                values.append(target.flatMap { mapping.entities[$0.entityName] }.map { .integer(Int64($0.number)) } ?? .null)
            }
        }
        return (columns, values)
    }

    /// Another stored object with this object's values for one of its uniqueness constraints, if
    /// any. Objects without a value for every constrained attribute never clash.
    private func uniquenessConflict(
        of node: IncrementalStoreNode, table: CoreDataSQLiteMapping.Entity, reference: Int64, connection: PostgresConnection
    ) throws -> ConstraintConflict? {
        for constraint in table.layout.uniquenessConstraints {
            let columns = constraint.slots.compactMap { slot in table.attributes.first { $0.slot == slot } }
            guard columns.count == constraint.slots.count, columns.allSatisfy({ node.attributeValues[$0.attribute.name] != nil }) else { continue }
            let test = columns.enumerated().map { "\(PostgresSQL.quoted($1.column)) = $\($0 + 1)" }.joined(separator: " AND ")
            let values = columns.map { CoreDataSQLiteValues.encode(node.attributeValues[$0.attribute.name], for: $0.attribute) }
            let rows = try connection.rows(
                "SELECT \"Z_PK\", \"Z_ENT\" FROM \(schema.table(table.table)) WHERE \(test) AND \"Z_PK\" <> $\(values.count + 1) LIMIT 1",
                values + [.integer(reference)], logger: logger)
            guard let row = rows.first?.makeRandomAccess(), let key = try row[0].int64() else { continue }
            let entity = try row[1].int64().flatMap { mapping.entityNames[Int($0)] } ?? table.layout.name
            return ConstraintConflict(constraint: constraint.names, conflictingObjectIDs: [node.objectID], storeObjectID: objectID(entity: entity, reference: key))
        }
        return nil
    }

    /// Join-table links and ordering keys of a saved object's to-many relationships: the links
    /// it no longer has go, the ones it has are written with their positions (Core Data's
    /// ordering keys: 2048, then every 1024).
    private func writeToManys(
        of node: IncrementalStoreNode, table: CoreDataSQLiteMapping.Entity, reference: Int64, statements: inout PipelinedStatements
    ) throws {
        func orderKey(_ position: Int) -> Int64 { Int64(2048 + 1024 * position) }
        for toMany in table.toManys {
            let targets = node.relatedObjectIDs[table.layout.relationships[toMany.slot].name] ?? []
            switch toMany.storage {
            case .inverseForeignKey(let destination, _, let order):
                guard let order else { continue }  // the targets' own rows hold the key
                for (position, target) in targets.enumerated() {
                    guard let key = target.referenceNumber else { continue }
                    try statements.send(
                        "UPDATE \(schema.table(destination)) SET \(PostgresSQL.quoted(order)) = $1 WHERE \"Z_PK\" = $2",
                        [.integer(orderKey(position)), .integer(key)])
                }
            case .joinTable(let join, let ownName, let otherName, let order, _, let destination):
                let (own, other) = (PostgresSQL.quoted(ownName), PostgresSQL.quoted(otherName))
                // A link is written only while its target is stored, and keeps it stored until this
                // save commits (a key-share lock, what a foreign key takes): another server's delete
                // of the target waits, then removes the link with the target's other links; a
                // target already deleted gets no link, which reads as none either way. No link
                // ever outlives its target.
                let target = "SELECT 1 FROM \(schema.table(destination)) WHERE \"Z_PK\" = $2 FOR KEY SHARE"
                let keys = targets.compactMap(\.referenceNumber)
                var bindings = PostgresBindings()
                bindings.append(reference)
                bindings.append(keys)
                try statements.send("DELETE FROM \(schema.table(join)) WHERE \(own) = $1 AND NOT (\(other) = ANY($2))", bindings: bindings)
                for (position, key) in keys.enumerated() {
                    if let order {
                        let orderColumn = PostgresSQL.quoted(order)
                        try statements.send(
                            "INSERT INTO \(schema.table(join)) (\(own), \(other), \(orderColumn)) SELECT $1, $2, $3 WHERE EXISTS (\(target)) "
                                + "ON CONFLICT (\(own), \(other)) DO UPDATE SET \(orderColumn) = excluded.\(orderColumn)",
                            [.integer(reference), .integer(key), .integer(orderKey(position))])
                    } else {
                        try statements.send(
                            "INSERT INTO \(schema.table(join)) (\(own), \(other)) SELECT $1, $2 WHERE EXISTS (\(target)) ON CONFLICT DO NOTHING",
                            [.integer(reference), .integer(key)])
                    }
                }
            }
        }
    }
}
