import Foundation
import Logging
import PostgresNIO
import Strata

/// Reading: an entity's rows (and each object's to-many targets, one statement per relationship
/// for all the rows read) through a generation's snapshot.
extension PostgresStore {
    /// The objects of `entity` (not its subentities) that may match `predicate`: what of the
    /// predicate translates to SQL (``SQLFetchCondition``, as on the SQLite store, in
    /// PostgreSQL's dialect) selects them in the query; the context evaluates the whole
    /// predicate again on what comes back, so what does not translate only widens the read.
    func fetchNodes(of entity: EntityDescription, matching predicate: FetchPredicate?, with snapshot: (any IncrementalStoreSnapshot)?) throws
        -> [IncrementalStoreNode]
    {
        guard let table = mapping.entities[entity.name] else {
            throw PersistenceError(.unknownEntity, "the store has no table for the entity '\(entity.name)'")
        }
        let condition = predicate.flatMap { SQLFetchCondition.compile($0, for: table, in: mapping, store: identifier, dialect: dialect) }
        let sql = condition.map { SQLDialect.numberingPlaceholders($0.sql, from: 2) } ?? "TRUE"
        return try read(snapshot) { connection in
            try nodes(of: table, where: sql, condition?.bindings ?? [], connection: connection)
        }
    }

    /// One object's values, or `nil` when the snapshot has no such object.
    func node(for objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot) throws -> IncrementalStoreNode? {
        guard let table = mapping.entities[objectID.entityName], let reference = referenceObject(for: objectID) else { return nil }
        return try read(snapshot) { connection in
            try nodes(of: table, where: "t.\"Z_PK\" = $2", [.integer(reference)], connection: connection).first
        }
    }

    /// The targets of one to-many relationship of one object.
    func targets(
        of relationship: RelationshipDescription, for objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot
    ) throws -> [ManagedObjectID] {
        guard let table = mapping.entities[objectID.entityName], let reference = referenceObject(for: objectID),
            let slot = table.toManys.first(where: { table.layout.relationships[$0.slot].name == relationship.name })
        else { return [] }
        return try read(snapshot) { connection in
            try targets(of: slot, for: [reference], connection: connection)[reference] ?? []
        }
    }

    /// Runs `body` on the snapshot's connection (or, without one, on a pooled connection).
    private func read<T>(_ snapshot: (any IncrementalStoreSnapshot)?, _ body: (PostgresConnection) throws -> T) throws -> T {
        if let snapshot = snapshot as? PostgresSnapshot { return try snapshot.read(body) }
        return try pool.withConnection(body)
    }

    /// The objects of `table`'s entity (not its subentities) that `condition` selects (on the
    /// table as `t`; its parameters from `$2`), each with every relationship.
    func nodes(
        of table: CoreDataSQLiteMapping.Entity, where condition: String, _ values: [SQLiteValue], connection: PostgresConnection
    ) throws -> [IncrementalStoreNode] {
        var columns = ["t.\"Z_PK\"", "t.\"Z_OPT\""] + table.attributes.map { "t." + PostgresSQL.quoted($0.column) }
        for toOne in table.toOnes {
            columns.append("t." + PostgresSQL.quoted(toOne.column))
            columns.append(toOne.entityColumn.map { "t." + PostgresSQL.quoted($0) } ?? "NULL::integer")
        }
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(schema.table(table.table)) t WHERE t.\"Z_ENT\" = $1 AND (\(condition))"
        let rows = try connection.rows(sql, [.integer(Int64(table.number))] + values, logger: logger)
        let storages = table.attributeTypes.map(PostgresStorage.init)
        var nodes: [IncrementalStoreNode] = []
        nodes.reserveCapacity(rows.count)
        for row in rows {
            let cells = row.makeRandomAccess()
            guard let reference = try cells[0].int64() else { continue }
            var attributes: [String: AttributeValue] = [:]
            for (index, column) in table.attributes.enumerated() {
                let stored = try cells[2 + index].value(as: storages[index])
                do {
                    attributes[column.attribute.name] = try CoreDataSQLiteValues.decode(stored, for: column.attribute)
                } catch {
                    throw PostgresStoreError(.server, "\(table.layout.name) \(reference): \(error)")
                }
            }
            var related: [String: [ManagedObjectID]] = [:]
            var cell = 2 + table.attributes.count
            for toOne in table.toOnes {
                let key = try cells[cell].int64()
                let number = try cells[cell + 1].int64()
                cell += 2
                let name = table.layout.relationships[toOne.slot].name
                guard let key else {
                    related[name] = []
                    continue
                }
                let target = number.flatMap { mapping.entityNames[Int($0)] } ?? toOne.destination
                related[name] = [objectID(entity: target, reference: key)]
            }
            nodes.append(
                IncrementalStoreNode(
                    objectID: objectID(entity: table.layout.name, reference: reference), attributeValues: attributes, relatedObjectIDs: related,
                    version: try cells[1].int64() ?? 0))
        }
        guard !table.toManys.isEmpty, !nodes.isEmpty else { return nodes }
        let references = nodes.compactMap { $0.objectID.referenceNumber }
        for slot in table.toManys {
            let targets = try targets(of: slot, for: references, connection: connection)
            let name = table.layout.relationships[slot.slot].name
            for index in nodes.indices {
                nodes[index].relatedObjectIDs[name] = targets[nodes[index].objectID.referenceNumber ?? 0] ?? []
            }
        }
        return nodes
    }

    /// The targets of one to-many relationship of each of `references`, in order.
    private func targets(
        of slot: CoreDataSQLiteMapping.ToManySlot, for references: [Int64], connection: PostgresConnection
    ) throws -> [Int64: [ManagedObjectID]] {
        let sql: String
        switch slot.storage {
        case .inverseForeignKey(let table, let column, let order):
            let key = PostgresSQL.quoted(column)
            sql = "SELECT \(key), \"Z_PK\", \"Z_ENT\" FROM \(schema.table(table)) WHERE \(key) = ANY($1) "
                + "ORDER BY \(key), \(order.map(PostgresSQL.quoted) ?? "\"Z_PK\"")"
        case .joinTable(let table, let own, let other, let order, _, let destinationTable):
            let (own, other) = (PostgresSQL.quoted(own), PostgresSQL.quoted(other))
            sql = "SELECT j.\(own), j.\(other), d.\"Z_ENT\" FROM \(schema.table(table)) j "
                + "JOIN \(schema.table(destinationTable)) d ON d.\"Z_PK\" = j.\(other) WHERE j.\(own) = ANY($1) "
                + "ORDER BY j.\(own), j.\(order.map(PostgresSQL.quoted) ?? other)"
        }
        var bindings = PostgresBindings()
        bindings.append(references)
        var targets: [Int64: [ManagedObjectID]] = [:]
        for row in try connection.rows(sql, bindings: bindings, logger: logger) {
            let cells = row.makeRandomAccess()
            guard let owner = try cells[0].int64(), let key = try cells[1].int64() else { continue }
            let entity = try cells[2].int64().flatMap { mapping.entityNames[Int($0)] } ?? slot.destination
            targets[owner, default: []].append(objectID(entity: entity, reference: key))
        }
        return targets
    }

    /// The ID of the object of `entity` with `reference`.
    func objectID(entity name: String, reference: Int64) -> ManagedObjectID {
        guard let entity = managedObjectModel.entity(named: name) else {
            preconditionFailure("the mapping names an entity the model has not: \(name)")
        }
        return newObjectID(for: entity, referenceObject: reference)
    }
}
