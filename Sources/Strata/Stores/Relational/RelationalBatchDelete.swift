import Foundation

/// A batch delete in SQL, once for both relational stores, when the delete rules translate to
/// statements: the rows go in one `DELETE`, and each nullify rule is one `UPDATE` of the other
/// side (a key set to NULL, or only `Z_OPT` moved on for an object whose to-many lost members,
/// as the general path writes it). A cascade, a deny, a join table, or a nullify that would
/// empty a required to-one takes the general path, on rows, which gives the same store.
///
/// In the store's write transaction: ``selectObjects(on:)`` first (the store then reads what
/// history keeps of them), then ``delete(on:)``.
package struct RelationalBatchDelete {
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

    /// Temporary tables of the connection's own (never in the store's schema).
    private static let deletedTable = "strata_batch_deleted"
    private static let touchedTable = "strata_batch_touched"

    private let selections: [(entity: CoreDataTableMapping.Entity, condition: SQLFetchCondition)]
    private let nullifies: [Nullify]
    private let table: String
    private let mapping: CoreDataTableMapping
    private let store: String
    private let dialect: SQLDialect

    /// The delete of what `request` selects of `names`' objects, or `nil` when the request or
    /// the model's delete rules do not translate (a delete by IDs takes the general path too).
    package init?(_ request: BatchDeleteRequest, names: [String], mapping: CoreDataTableMapping, store: String, dialect: SQLDialect) {
        guard request.objectIDs == nil else { return nil }
        var selections: [(entity: CoreDataTableMapping.Entity, condition: SQLFetchCondition)] = []
        var nullifies: [Nullify] = []
        for name in names {
            guard let entity = mapping.entities[name] else { return nil }
            if entity.layout.entity.isAbstract { continue }
            guard let condition = SQLFetchCondition.exact(request.predicate, for: entity, in: mapping, store: store, dialect: dialect) else { return nil }
            guard let rules = Self.nullifyStatements(of: entity, mapping: mapping, dialect: dialect) else { return nil }
            selections.append((entity, condition))
            nullifies += rules
        }
        guard let table = selections.first?.entity.table, selections.allSatisfy({ $0.entity.table == table }) else { return nil }
        self.selections = selections
        self.nullifies = nullifies
        self.table = table
        self.mapping = mapping
        self.store = store
        self.dialect = dialect
    }

    /// Selects the objects to delete (into a temporary table); returns their IDs, in key order,
    /// or `nil` when a required to-one would be emptied (nothing is written then: the general
    /// path refuses it with its error).
    package func selectObjects(on connection: some RelationalConnection) throws -> [ManagedObjectID]? {
        let (deleted, touched, integer) = (Self.deletedTable, Self.touchedTable, dialect.integerType)
        try connection.write("CREATE TEMP TABLE IF NOT EXISTS \(deleted) (pk \(integer) PRIMARY KEY, ent \(integer))", [], object: nil)
        try connection.write("CREATE TEMP TABLE IF NOT EXISTS \(touched) (tbl TEXT, pk \(integer), PRIMARY KEY (tbl, pk))", [], object: nil)
        try clear(connection)
        let (pk, ent) = (dialect.column("Z_PK", of: "t"), dialect.column("Z_ENT", of: "t"))
        for (entity, condition) in selections {
            let statement: SQLFragment =
                "INSERT INTO \(deleted) SELECT \(pk), \(ent) FROM \(dialect.table(entity.table)) t "
                + "WHERE \(ent) = \(bound: .integer(Int64(entity.number))) AND (\(condition.fragment))"
            try connection.write(statement.sql(in: dialect), statement.bindings, object: nil)
        }
        // Refused as the general path refuses it, before anything is written.
        for nullify in nullifies {
            guard let check = nullify.requiredCheck else { continue }
            var refused = false
            try connection.forEachRow("SELECT EXISTS (\(check))", []) { refused = $0.first?.integerValue == 1 }
            if refused {
                try clear(connection)
                return nil
            }
        }
        var ids: [ManagedObjectID] = []
        try connection.forEachRow("SELECT pk, ent FROM \(deleted) ORDER BY pk", []) { row in
            guard let key = row[0].integerValue, let number = row[1].integerValue, let name = mapping.entityNames[Int(number)] else { return }
            ids.append(ManagedObjectID(space: ObjectIDSpace.make(store: store, entityName: name), number: key))
        }
        return ids
    }

    /// Runs the nullify rules and deletes the selected rows; returns, for persistent history,
    /// the objects of the other sides it changed and which property of each. Each object of
    /// the other side is written once, whatever number of rules touch it: a statement leaves
    /// out the rows an earlier one wrote.
    package func delete(on connection: some RelationalConnection) throws -> [ManagedObjectID: Set<String>] {
        var updated: [ManagedObjectID: Set<String>] = [:]
        let remember = "INSERT INTO \(Self.touchedTable) (tbl, pk) VALUES (\(dialect.placeholders(2))) ON CONFLICT DO NOTHING"
        for nullify in nullifies {
            var written: [Int64] = []
            try connection.forEachRow(nullify.sql, []) { row in
                guard let key = row[0].integerValue else { return }
                written.append(key)
                guard let number = row[1].integerValue, let name = mapping.entityNames[Int(number)] else { return }
                updated[ManagedObjectID(space: ObjectIDSpace.make(store: store, entityName: name), number: key), default: []].insert(nullify.property)
            }
            for key in written { try connection.write(remember, [.text(nullify.table), .integer(key)], object: nil) }
        }
        try connection.write(
            "DELETE FROM \(dialect.table(table)) WHERE \(dialect.column("Z_PK")) IN (SELECT pk FROM \(Self.deletedTable))", [], object: nil)
        try clear(connection)
        _ = try connection.finishWrites()
        return updated
    }

    private func clear(_ connection: some RelationalConnection) throws {
        try connection.write("DELETE FROM \(Self.deletedTable)", [], object: nil)
        try connection.write("DELETE FROM \(Self.touchedTable)", [], object: nil)
    }

    /// The statements the nullify rules of `entity`'s relationships make; `nil` when a rule does
    /// not translate (a cascade, a deny, a join table, an inverse without a column of its own).
    private static func nullifyStatements(of entity: CoreDataTableMapping.Entity, mapping: CoreDataTableMapping, dialect: SQLDialect) -> [Nullify]? {
        let layout = entity.layout
        let (deleted, touched) = (deletedTable, touchedTable)
        let pk = dialect.column("Z_PK")
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
                table == entity.table ? "\(pk) NOT IN (SELECT pk FROM \(deleted))" : dialect.alwaysTrue
            }
            // …and that an earlier statement has not written (a version moves on once per save).
            // Table names are the model's, never a user's text: they are written as literals.
            func untouched(_ table: String) -> String {
                "\(pk) NOT IN (SELECT pk FROM \(touched) WHERE tbl = '\(table)') AND \(kept(table))"
            }
            if let toOne = entity.toOnes.first(where: { $0.slot == slot }) {
                let key = dialect.column(toOne.column, of: "t")
                let pointed = "SELECT \(key) FROM \(dialect.table(entity.table)) t WHERE \(dialect.column("Z_PK", of: "t")) IN (SELECT pk FROM \(deleted)) "
                    + "AND \(key) IS NOT NULL"
                if inverse.isToMany {
                    // The target's to-many loses members: its row only moves on a version.
                    let version = dialect.column("Z_OPT")
                    statements.append(
                        Nullify(
                            table: toOne.destinationTable,
                            sql: "UPDATE \(dialect.table(toOne.destinationTable)) SET \(version) = \(version) + 1 WHERE \(pk) IN (\(pointed)) "
                                + "AND \(untouched(toOne.destinationTable)) RETURNING \(pk), \(dialect.column("Z_ENT"))",
                            property: inverse.name, requiredCheck: nil))
                } else {
                    // One to one: the target's own key points back.
                    guard let back = destination.toOnes.first(where: { $0.slot == inverseSlot }) else { return nil }
                    statements.append(
                        nullifying(
                            back, in: destination.table,
                            where: "\(dialect.column(back.column)) IN (SELECT pk FROM \(deleted)) AND \(kept(destination.table))",
                            property: inverse.name, required: !inverse.isOptional, dialect: dialect))
                }
            } else if let toMany = entity.toManys.first(where: { $0.slot == slot }) {
                guard case .inverseForeignKey(let table, let column, _) = toMany.storage,
                    let back = destination.toOnes.first(where: { $0.slot == inverseSlot }), back.column == column
                else { return nil }
                statements.append(
                    nullifying(
                        back, in: table, where: "\(dialect.column(column)) IN (SELECT pk FROM \(deleted)) AND \(kept(table))",
                        property: inverse.name, required: !inverse.isOptional, dialect: dialect))
            } else {
                return nil
            }
        }
        return statements
    }

    /// The statement that empties a to-one's key (and its entity and order columns) where `condition` holds.
    private static func nullifying(
        _ toOne: CoreDataTableMapping.ToOneColumn, in table: String, where condition: String, property: String, required: Bool, dialect: SQLDialect
    ) -> Nullify {
        let (pk, version) = (dialect.column("Z_PK"), dialect.column("Z_OPT"))
        let columns = [toOne.column] + [toOne.entityColumn, toOne.orderColumn].compactMap { $0 }
        let moved = "\(version) = CASE WHEN \(pk) IN (SELECT pk FROM \(touchedTable) WHERE tbl = '\(table)') THEN \(version) ELSE \(version) + 1 END"
        let sets = (columns.map { "\(dialect.column($0)) = NULL" } + [moved]).joined(separator: ", ")
        return Nullify(
            table: table, sql: "UPDATE \(dialect.table(table)) SET \(sets) WHERE \(condition) RETURNING \(pk), \(dialect.column("Z_ENT"))",
            property: property, requiredCheck: required ? "SELECT 1 FROM \(dialect.table(table)) WHERE \(condition)" : nil)
    }
}
