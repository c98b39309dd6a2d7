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

    /// What a nullify rule does to the other side, before it is written as SQL.
    private enum Rule {
        /// The targets of the deleted rows' to-one `column` lose a member of their to-many
        /// (`property`): only their version moves on.
        case moveVersions(table: String, column: String, property: String)
        /// The rows of `table` whose to-one `back` points at a deleted row lose it.
        case empty(CoreDataTableMapping.ToOneColumn, table: String, property: String, required: Bool)
    }

    /// Temporary tables of the connection's own (never in the store's schema).
    private static let touchedTable = "strata_batch_touched"

    private let selections: [(entity: CoreDataTableMapping.Entity, condition: SQLFetchCondition)]
    private let nullifies: [Nullify]
    private let table: String
    /// The to-one columns of the deleted rows that moving their targets' versions reads,
    /// copied beside each selected row's key (`p1`, `p2`, …) when it is selected: reading them
    /// from the table again, by the selected keys, was a second scan of it (on PostgreSQL, two
    /// fifths of deleting 10,000 of 100,000 people).
    private let pointers: [String]
    /// The temporary table of the selected rows (`pk`, `ent`, then the ``pointers``).
    private var deletedTable: String { Self.deletedTable(holding: pointers.count) }
    private let mapping: CoreDataTableMapping
    private let store: String
    private let dialect: SQLDialect

    /// The delete of what `request` selects of `names`' objects, or `nil` when the request or
    /// the model's delete rules do not translate (a delete by IDs takes the general path too).
    package init?(_ request: BatchDeleteRequest, names: [String], mapping: CoreDataTableMapping, store: String, dialect: SQLDialect) {
        guard request.objectIDs == nil else { return nil }
        var selections: [(entity: CoreDataTableMapping.Entity, condition: SQLFetchCondition)] = []
        var rules: [Rule] = []
        for name in names {
            guard let entity = mapping.entities[name] else { return nil }
            if entity.layout.entity.isAbstract { continue }
            guard let condition = SQLFetchCondition.exact(request.predicate, for: entity, in: mapping, store: store, dialect: dialect) else { return nil }
            guard let entityRules = Self.rules(of: entity, mapping: mapping) else { return nil }
            selections.append((entity, condition))
            rules += entityRules
        }
        guard let table = selections.first?.entity.table, selections.allSatisfy({ $0.entity.table == table }) else { return nil }
        var pointers: [String] = []
        for case .moveVersions(_, let column, _) in rules where !pointers.contains(column) { pointers.append(column) }
        self.selections = selections
        self.table = table
        self.pointers = pointers
        self.mapping = mapping
        self.store = store
        self.dialect = dialect
        let deleted = Self.deletedTable(holding: pointers.count)
        nullifies = rules.map { Self.statement($0, deleting: table, from: deleted, pointers: pointers, dialect: dialect) }
    }

    /// The name of the temporary table of selected rows with `pointers` pointer columns: one
    /// name per shape, so that each shape is created once per connection.
    private static func deletedTable(holding pointers: Int) -> String {
        pointers == 0 ? "strata_batch_deleted" : "strata_batch_deleted_\(pointers)"
    }

    /// Selects the objects to delete (into a temporary table); returns their IDs, in key order,
    /// or `nil` when a required to-one would be emptied (nothing is written then: the general
    /// path refuses it with its error).
    package func selectObjects(on connection: some RelationalConnection) throws -> [ManagedObjectID]? {
        let (deleted, touched, integer) = (deletedTable, Self.touchedTable, dialect.integerType)
        let pointerColumns = pointers.indices.map { ", p\($0 + 1) \(integer)" }.joined()
        try connection.write("CREATE TEMP TABLE IF NOT EXISTS \(deleted) (pk \(integer) PRIMARY KEY, ent \(integer)\(pointerColumns))", [], object: nil)
        try connection.write("CREATE TEMP TABLE IF NOT EXISTS \(touched) (tbl TEXT, pk \(integer), PRIMARY KEY (tbl, pk))", [], object: nil)
        try clear(connection)
        let (pk, ent) = (dialect.column("Z_PK", of: "t"), dialect.column("Z_ENT", of: "t"))
        let copied = ([pk, ent] + pointers.map { dialect.column($0, of: "t") }).joined(separator: ", ")
        for (entity, condition) in selections {
            let statement: SQLFragment =
                "INSERT INTO \(deleted) SELECT \(copied) FROM \(dialect.table(entity.table)) t "
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
            "DELETE FROM \(dialect.table(table)) WHERE \(dialect.column("Z_PK")) IN (SELECT pk FROM \(deletedTable))", [], object: nil)
        try clear(connection)
        _ = try connection.finishWrites()
        return updated
    }

    private func clear(_ connection: some RelationalConnection) throws {
        try connection.write("DELETE FROM \(deletedTable)", [], object: nil)
        try connection.write("DELETE FROM \(Self.touchedTable)", [], object: nil)
    }

    /// What the nullify rules of `entity`'s relationships do; `nil` when a rule does not
    /// translate (a cascade, a deny, a join table, an inverse without a column of its own).
    private static func rules(of entity: CoreDataTableMapping.Entity, mapping: CoreDataTableMapping) -> [Rule]? {
        let layout = entity.layout
        var rules: [Rule] = []
        for (slot, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            switch relationship.deleteRule {
            case .noAction: continue
            case .cascade, .deny: return nil
            case .nullify: break
            }
            guard let inverseSlot = layout.inverseSlots[slot], let destination = mapping.entities[relationship.destinationEntityName] else { continue }
            let inverse = destination.layout.relationships[inverseSlot]
            if let toOne = entity.toOnes.first(where: { $0.slot == slot }) {
                if inverse.isToMany {
                    // The target's to-many loses members: its row only moves on a version.
                    rules.append(.moveVersions(table: toOne.destinationTable, column: toOne.column, property: inverse.name))
                } else {
                    // One to one: the target's own key points back.
                    guard let back = destination.toOnes.first(where: { $0.slot == inverseSlot }) else { return nil }
                    rules.append(.empty(back, table: destination.table, property: inverse.name, required: !inverse.isOptional))
                }
            } else if let toMany = entity.toManys.first(where: { $0.slot == slot }) {
                guard case .inverseForeignKey(let table, let column, _) = toMany.storage,
                    let back = destination.toOnes.first(where: { $0.slot == inverseSlot }), back.column == column
                else { return nil }
                rules.append(.empty(back, table: table, property: inverse.name, required: !inverse.isOptional))
            } else {
                return nil
            }
        }
        return rules
    }

    /// The statement of one rule, for a delete from `table` whose selected rows are in
    /// `deleted`. Membership of those rows, and of the rows written before, is an `IN` on the
    /// temporary tables' keys: SQLite reads it from their primary key, PostgreSQL hashes it once.
    /// (A correlated `EXISTS` ran a subquery per row on SQLite, a fifth more time for a batch
    /// delete of 10,000 people; in a `SET`, PostgreSQL costed it for every row the scan might
    /// update and, past `jit_above_cost`, compiled the statement first: 120 ms.)
    private static func statement(
        _ rule: Rule, deleting table: String, from deleted: String, pointers: [String], dialect: SQLDialect
    ) -> Nullify {
        let (pk, version, entityColumn) = (dialect.column("Z_PK"), dialect.column("Z_OPT"), dialect.column("Z_ENT"))
        // Whether a key is a deleted row's, and whether the row at hand (of `target`) was written
        // by an earlier statement (a version moves on once per save). Table names are the
        // model's, never a user's text: they are written as literals.
        func isDeleted(_ key: String) -> String { "\(key) IN (SELECT pk FROM \(deleted))" }
        func wasWritten(_ target: String) -> String { "\(pk) IN (SELECT pk FROM \(touchedTable) WHERE tbl = '\(target)')" }
        switch rule {
        case .moveVersions(let target, let column, let property):
            // The targets the selected rows pointed at, as copied when they were selected (a
            // target deleted with them is no longer there to move on): a few keys, each found
            // by the target table's primary key rather than by scanning it.
            let pointer = "d.p\((pointers.firstIndex(of: column) ?? 0) + 1)"
            let kept = target == table ? " AND NOT \(isDeleted(pointer))" : ""
            return Nullify(
                table: target,
                sql: "UPDATE \(dialect.table(target)) SET \(version) = \(version) + 1 "
                    + "WHERE \(pk) IN (SELECT \(pointer) FROM \(deleted) d WHERE \(pointer) IS NOT NULL\(kept)) AND NOT \(wasWritten(target)) "
                    + "RETURNING \(pk), \(entityColumn)",
                property: property, requiredCheck: nil)
        case .empty(let toOne, let target, let property, let required):
            let condition = isDeleted(dialect.column(toOne.column)) + (target == table ? " AND NOT \(isDeleted(pk))" : "")
            let columns = [toOne.column] + [toOne.entityColumn, toOne.orderColumn].compactMap { $0 }
            let moved = "\(version) = CASE WHEN \(wasWritten(target)) THEN \(version) ELSE \(version) + 1 END"
            let sets = (columns.map { "\(dialect.column($0)) = NULL" } + [moved]).joined(separator: ", ")
            return Nullify(
                table: target, sql: "UPDATE \(dialect.table(target)) SET \(sets) WHERE \(condition) RETURNING \(pk), \(entityColumn)",
                property: property, requiredCheck: required ? "SELECT 1 FROM \(dialect.table(target)) WHERE \(condition)" : nil)
        }
    }
}
