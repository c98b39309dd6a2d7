import Foundation

/// A save written in SQL, once for every relational store (SQLite, PostgreSQL): optimistic
/// locking in each statement, uniqueness constraints checked against the rows the transaction
/// sees, and the relationships that live outside a row's own columns (join tables, positions in
/// ordered to-many relationships). The store opens the transaction around it and adds what is
/// its own: persistent history, metadata, telling other writers.
///
/// Statements are built in the connection's ``SQLDialect`` once per save and shape (an entity's
/// insert, an update of given columns), so that a driver that caches prepared statements by
/// their text finds them again for every row.
package struct RelationalSaveWriter<Connection: RelationalConnection> {
    let mapping: CoreDataTableMapping
    let connection: Connection
    let store: IncrementalStore
    private let dialect: SQLDialect
    private let statements = StatementTexts()

    private enum StatementKey: Hashable {
        case delete(entity: Int), insert(entity: Int), update(entity: Int, columns: [Int]), uniqueness(entity: Int, constraint: Int)
        // A join table is written from both sides (own and other swapped), and a table may hold
        // several relationships' positions: these are keyed by their columns too.
        case deleteLinks(table: String, own: String), order(table: String, column: String), link(table: String, own: String, order: String?, checked: Bool)
    }

    /// The texts made so far, by shape: a class, so that making one while the writer reads its
    /// own properties is no overlapping access.
    private final class StatementTexts {
        var texts: [StatementKey: String] = [:]
    }

    package init(mapping: CoreDataTableMapping, connection: Connection, store: IncrementalStore) {
        self.mapping = mapping
        self.connection = connection
        self.store = store
        dialect = connection.dialect
    }

    /// Core Data's ordering keys: spaced by 1024, the first 2048 (schema page §8).
    private static func orderKey(_ position: Int) -> Int64 { Int64(2048 + 1024 * position) }

    /// Writes `changes`; returns each saved object's new version.
    ///
    /// - Throws: ``PersistenceError`` `.conflict` naming every updated or deleted object whose
    ///   stored version is not the one its context read, and every inserted object another save
    ///   stored first; `.constraintConflict` for objects that would share a uniqueness
    ///   constraint's values with another. Nothing is kept then: the store rolls back.
    package func write(_ changes: RowChanges) throws -> [ManagedObjectID: Int64] {
        var versions: [ManagedObjectID: Int64] = [:]
        versions.reserveCapacity(changes.inserted.count + changes.updated.count)
        var constraintConflicts: [ConstraintConflict] = []

        // Deletes first: a value a deleted object held under a uniqueness constraint is free for
        // an object this save inserts. In one order on every server (entity, then key), so that
        // two saves deleting the same objects take their locks in the same order as far as the
        // driver keeps it (one that deletes a batch in one statement may not; the store retries
        // a save the server stopped for a deadlock). Each table's rows go as one batch.
        let deleted = try changes.deleted.map { id, version in (id, version, try place(of: id)) }
            .sorted { ($0.2.entity.number, $0.2.reference) < ($1.2.entity.number, $1.2.reference) }
        var deletes = RelationalBatchGatherer<String>()
        var unlinks = RelationalBatchGatherer<StatementKey>()
        for (id, version, (entity, reference)) in deleted {
            try deletes.add([.integer(reference), .integer(version)], of: id, to: entity.table, connection: connection) {
                RelationalWriteBatch(.delete, table: entity.table, rowSQL: deleteSQL(of: entity))
            }
            for toMany in entity.toManys {
                guard case .joinTable(let table, let own, _, _, _, _) = toMany.storage else { continue }
                let key = StatementKey.deleteLinks(table: table, own: own)
                try unlinks.add([.integer(reference)], of: nil, to: key, connection: connection) {
                    RelationalWriteBatch(
                        .unlink(own: own), table: table,
                        rowSQL: sql(key) { "DELETE FROM \(dialect.table(table)) WHERE \(dialect.column(own)) = \(dialect.placeholder(1))" })
                }
            }
        }
        try deletes.sendAll(to: connection)
        try unlinks.sendAll(to: connection)
        // Updates of the same entity and columns go to the connection as one batch, in the
        // deletes' order (entity, then key): the same lock order on every server, and on SQLite
        // each row's B-tree pages are the ones the row before it left in the cache (a save's
        // updates in a dictionary's order seek across the whole table).
        let updated = try changes.updated.map { id, row in (id, row, try place(of: id)) }
            .sorted { ($0.2.entity.number, $0.2.reference) < ($1.2.entity.number, $1.2.reference) }
        var updates = RelationalBatchGatherer<StatementKey>()
        var toManys: [ToManyWrite] = []  // written once every row is, below
        for (id, row, (entity, reference)) in updated {
            // A uniqueness check must see the values the updates before it wrote: an object may
            // take a value another object of this save gave up.
            if !entity.layout.uniquenessConstraints.isEmpty { try updates.sendAll(to: connection) }
            if let conflict = try uniquenessConflict(of: id, row: row, entity: entity, reference: reference) {
                constraintConflicts.append(conflict)
                continue
            }
            // Only the columns that changed, when the row it started from is known: an unchanged
            // indexed column then costs its index nothing, and Core Data writes no more either.
            let columns = changes.committed[id].map { changedColumns(of: row, from: $0, entity: entity) } ?? entity.writtenColumns
            var values: [SQLValue] = [.integer(row.version + 1)]
            values.reserveCapacity(columns.count + 8)
            mapping.appendWrittenValues(of: row, entity: entity, columns: columns, to: &values)
            values += [.integer(reference), .integer(row.version)]
            try updates.add(values, of: id, to: StatementKey.update(entity: entity.number, columns: columns), connection: connection) {
                RelationalWriteBatch(
                    .update(columns: ["Z_OPT"] + columnNames(of: entity, columns)), table: entity.table, rowSQL: updateSQL(of: entity, columns: columns))
            }
            versions[id] = row.version + 1
            if entity.writesToManys, changes.inserted[id] == nil,
                let write = try Self.changedToManys(of: row, id: id, committed: changes.committed[id], entity: entity, reference: reference)
            {
                toManys.append(write)
            }
        }
        try updates.sendAll(to: connection)
        // Inserts in reference order: of two new objects that clash, the later-numbered one is
        // the one reported, as on the other stores. Each entity's rows go to the connection as
        // one batch (a driver that binds arrays inserts them in a few statements).
        var inserts = RelationalBatchGatherer<Int>()
        for (id, row) in changes.inserted.sorted(by: { ($0.key.referenceNumber ?? 0) < ($1.key.referenceNumber ?? 0) }) {
            let (entity, reference) = try place(of: id)
            if let conflict = try uniquenessConflict(of: id, row: row, entity: entity, reference: reference) {
                constraintConflicts.append(conflict)
                continue
            }
            // An object written back after another save deleted it goes on above the version its
            // context read, so that a context holding an older one meets a conflict. No row
            // inserted: another save stored the object first.
            let version = row.version > 0 ? row.version + 1 : 1
            var values: [SQLValue] = [.integer(reference), .integer(Int64(entity.number)), .integer(version)]
            values.reserveCapacity(entity.writtenColumns.count + 8)
            mapping.appendWrittenValues(of: row, entity: entity, columns: entity.writtenColumns, to: &values)
            try inserts.add(values, of: id, to: entity.number, connection: connection) {
                RelationalWriteBatch(
                    .insert(columns: ["Z_PK", "Z_ENT", "Z_OPT"] + columnNames(of: entity, entity.writtenColumns)), table: entity.table,
                    rowSQL: insertSQL(of: entity))
            }
            versions[id] = version
            if entity.writesToManys { toManys.append(ToManyWrite(row: row, reference: reference, isNew: true, slots: entity.toManys)) }
        }
        try inserts.sendAll(to: connection)
        let conflicts = try connection.finishWrites()
        guard conflicts.isEmpty else { throw PersistenceError.changedSinceRead(conflicts) }
        guard constraintConflicts.isEmpty else {
            throw PersistenceError(
                .constraintConflict, objectIDs: constraintConflicts.flatMap(\.conflictingObjectIDs),
                "\(constraintConflicts.count) uniqueness constraint(s) broken: " + constraintConflicts.map(\.description).joined(separator: "; "),
                constraintConflicts: constraintConflicts)
        }
        // Links and positions of every object go to the connection in batches too: an import of
        // a million tagged books is a few statements per join table, not one per link.
        var links = RelationalBatchGatherer<StatementKey>()
        var linkWriters: [LinkSide: Set<Int64>] = [:]
        for write in toManys {
            for toMany in write.slots {
                if case .joinTable(let table, let own, _, _, _, _) = toMany.storage { linkWriters[LinkSide(table: table, own: own), default: []].insert(write.reference) }
            }
        }
        for write in toManys { try writeToManys(write, writers: linkWriters, inserted: changes.inserted, into: &links) }
        try links.sendAll(to: connection)
        _ = try connection.finishWrites()
        return versions
    }

    /// The statement text of `key`, made by `make` the first time this save needs it.
    private func sql(_ key: StatementKey, _ make: () -> String) -> String {
        if let sql = statements.texts[key] { return sql }
        let sql = make()
        statements.texts[key] = sql
        return sql
    }

    /// The table mapping and primary key of a saved object.
    private func place(of id: ManagedObjectID) throws -> (entity: CoreDataTableMapping.Entity, reference: Int64) {
        guard let entity = mapping.entities[id.entityName], let reference = store.referenceObject(for: id) else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "\(id) is not an object of the store \(store.identifier)")
        }
        return (entity, reference)
    }

    /// Which written columns of `row` differ from `committed`: positions in
    /// ``CoreDataTableMapping/Entity/storedAttributeIndices``, then in `toOneSlots` (offset by
    /// the stored attributes' count).
    private func changedColumns(of row: Row, from committed: Row, entity: CoreDataTableMapping.Entity) -> [Int] {
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

    /// The names of the written columns at `columns` (a to-one's key, then its entity number
    /// where the table has a column for it).
    private func columnNames(of entity: CoreDataTableMapping.Entity, _ columns: [Int]) -> [String] {
        columns.flatMap { index -> [String] in
            if index < entity.storedAttributeIndices.count { return [entity.attributes[entity.storedAttributeIndices[index]].column] }
            let toOne = entity.toOnes[index - entity.storedAttributeIndices.count]
            return [toOne.column] + (toOne.entityColumn.map { [$0] } ?? [])
        }
    }

    /// `DELETE` of a row, where `Z_PK` and the old `Z_OPT` match.
    private func deleteSQL(of entity: CoreDataTableMapping.Entity) -> String {
        sql(.delete(entity: entity.number)) {
            "DELETE FROM \(dialect.table(entity.table)) WHERE \(dialect.column("Z_PK")) = \(dialect.placeholder(1)) "
                + "AND \(dialect.column("Z_OPT")) = \(dialect.placeholder(2))"
        }
    }

    /// `UPDATE` of `Z_OPT` and the given written columns, where `Z_PK` and the old `Z_OPT` match.
    private func updateSQL(of entity: CoreDataTableMapping.Entity, columns: [Int]) -> String {
        sql(.update(entity: entity.number, columns: columns)) {
            let names = ["Z_OPT"] + columnNames(of: entity, columns)
            let assignments = names.enumerated().map { "\(dialect.column($1)) = \(dialect.placeholder($0 + 1))" }
            return "UPDATE \(dialect.table(entity.table)) SET \(assignments.joined(separator: ", ")) "
                + "WHERE \(dialect.column("Z_PK")) = \(dialect.placeholder(names.count + 1)) AND \(dialect.column("Z_OPT")) = \(dialect.placeholder(names.count + 2))"
        }
    }

    /// `INSERT` of a whole row (`Z_PK, Z_ENT, Z_OPT`, then every written column) that inserts
    /// nothing when the key is taken.
    private func insertSQL(of entity: CoreDataTableMapping.Entity) -> String {
        sql(.insert(entity: entity.number)) {
            let names = (["Z_PK", "Z_ENT", "Z_OPT"] + columnNames(of: entity, entity.writtenColumns)).map(dialect.column)
            return "INSERT INTO \(dialect.table(entity.table)) (\(names.joined(separator: ", "))) VALUES (\(dialect.placeholders(names.count))) "
                + "ON CONFLICT (\(dialect.column("Z_PK"))) DO NOTHING"
        }
    }

    /// Another stored object with this object's values for one of its uniqueness constraints, if
    /// any. Objects without a value for every constrained attribute never clash.
    private func uniquenessConflict(
        of id: ManagedObjectID, row: Row, entity: CoreDataTableMapping.Entity, reference: Int64
    ) throws -> ConstraintConflict? {
        for (number, constraint) in entity.layout.uniquenessConstraints.enumerated() {
            let columns = constraint.slots.compactMap { slot in entity.attributes.first { $0.slot == slot } }
            guard columns.count == constraint.slots.count, constraint.slots.allSatisfy({ row.attributes[$0] != nil }) else { continue }
            let query = sql(.uniqueness(entity: entity.number, constraint: number)) {
                // Text in byte order (equal exactly when equal in any deterministic collation), as
                // the unique index keeps it.
                let test = columns.enumerated().map { position, column in
                    let compared = dialect.column(column.column) + (column.attribute.type == .string ? dialect.textOrdering : "")
                    return "\(compared) = \(dialect.placeholder(position + 1))"
                }.joined(separator: " AND ")
                return "SELECT \(dialect.column("Z_PK")), \(dialect.column("Z_ENT")) FROM \(dialect.table(entity.table)) "
                    + "WHERE \(test) AND \(dialect.column("Z_PK")) <> \(dialect.placeholder(columns.count + 1)) LIMIT 1"
            }
            let values = columns.map { CoreDataColumnValues.encode(row.attributes[$0.slot], for: $0.attribute) }
            var other: ManagedObjectID?
            try connection.forEachRow(query, values + [.integer(reference)]) { cells in
                guard other == nil, let key = cells[0].integerValue else { return }
                let name = cells[1].integerValue.flatMap { mapping.entityNames[Int($0)] } ?? entity.layout.name
                other = ManagedObjectID(space: ObjectIDSpace.make(store: store.identifier, entityName: name), number: key)
            }
            if let other { return ConstraintConflict(constraint: constraint.names, conflictingObjectIDs: [id], storeObjectID: other) }
        }
        return nil
    }

    /// A saved object's to-many relationships to write: every one of a new object, the changed
    /// ones of an updated object.
    private struct ToManyWrite {
        let row: Row
        let reference: Int64
        let isNew: Bool
        let slots: [CoreDataTableMapping.ToManySlot]
    }

    /// The to-many relationships of an updated object that no longer hold what they held when
    /// its context read it (`committed`; all of them when that is not known), or `nil` when
    /// none changed: retitling a book writes none of its tags' links.
    ///
    /// A changed relationship whose stored targets read as empty at some use because the store
    /// failed (``RelationshipFault/failedUse``) fails the save: the change was made without them,
    /// and writing it would drop them (a tag added to a book whose tags could not be read would
    /// become its only tag).
    private static func changedToManys(
        of row: Row, id: ManagedObjectID, committed: Row?, entity: CoreDataTableMapping.Entity, reference: Int64
    ) throws -> ToManyWrite? {
        let changed = try entity.toManys.filter { toMany in
            guard let committed else { return true }
            // An unchanged relationship still unread is the snapshot's own fault: equal without reading.
            let targets = row.relationships[toMany.slot]
            let before = committed.relationships[toMany.slot]
            if case .unread(let fault) = targets, case .unread(let read) = before, fault === read { return false }
            guard !holdsTheSame(targets.objectIDs, as: before.objectIDs, ordered: toMany.storage.isOrdered) else { return false }
            if case .unread(let read) = before, let failure = read.failedUse {
                let name = entity.layout.relationships[toMany.slot].name
                throw PersistenceError(
                    .faultNotFulfilled, objectIDs: [id],
                    "the relationship \(entity.layout.entity.name).\(name) of \(id) was changed after its stored targets could not be read "
                        + "(\(failure)); saving it would drop them. Nothing was written: refresh the object and change it again")
            }
            return true
        }
        return changed.isEmpty ? nil : ToManyWrite(row: row, reference: reference, isNew: false, slots: changed)
    }

    /// One side of a join table: the links its `own` column's objects write.
    private struct LinkSide: Hashable {
        let table: String
        let own: String
    }

    /// Join-table links and ordering keys of a saved object's to-many relationships: the links
    /// it no longer has go, the ones it has are gathered into `links` with their positions. A
    /// new object has no links to remove: one written back after a delete lost its own with its
    /// row.
    ///
    /// A link whose both ends this save writes (`writers`: the owners writing each side) is
    /// written once, from the side whose own column sorts first, unless this side keeps a
    /// position of its own: an import of tagged books writes each link once, not from the book
    /// and again from the tag. A link to an object this save inserts (`inserted`) needs no check
    /// that its target is still stored: no other writer sees that object before the save commits.
    private func writeToManys(
        _ write: ToManyWrite, writers: [LinkSide: Set<Int64>], inserted: [ManagedObjectID: Row], into links: inout RelationalBatchGatherer<StatementKey>
    ) throws {
        for toMany in write.slots {
            let targets = write.row.relationships[toMany.slot].objectIDs
            switch toMany.storage {
            case .inverseForeignKey(let table, _, let order):
                guard let order else { continue }  // the targets' own rows hold the key
                let key = StatementKey.order(table: table, column: order)
                for (position, target) in targets.enumerated() {
                    guard let reference = target.referenceNumber else { continue }
                    try links.add([.integer(Self.orderKey(position)), .integer(reference)], of: nil, to: key, connection: connection) {
                        RelationalWriteBatch(.position(column: order), table: table, rowSQL: sql(key) {
                            "UPDATE \(dialect.table(table)) SET \(dialect.column(order)) = \(dialect.placeholder(1)) WHERE \(dialect.column("Z_PK")) = \(dialect.placeholder(2))"
                        })
                    }
                }
            case .joinTable(let table, let own, let other, let order, _, let destination):
                if !write.isNew {
                    try connection.removeLinks(in: table, ownColumn: own, otherColumn: other, of: write.reference, keeping: targets.compactMap(\.referenceNumber))
                }
                let writtenFromTheOtherSide = own > other && order == nil ? writers[LinkSide(table: table, own: other)] : nil
                for (position, target) in targets.enumerated() {
                    guard let reference = target.referenceNumber else { continue }
                    if writtenFromTheOtherSide?.contains(reference) == true { continue }
                    let checked = dialect.keepsRowClause != nil && inserted[target] == nil
                    var values: [SQLValue] = [.integer(write.reference), .integer(reference)]
                    if order != nil { values.append(.integer(Self.orderKey(position))) }
                    if checked { values.append(.integer(reference)) }
                    let key = StatementKey.link(table: table, own: own, order: order, checked: checked)
                    try links.add(values, of: nil, to: key, connection: connection) {
                        RelationalWriteBatch(
                            .link(own: own, other: other, order: order, destination: checked ? destination : nil), table: table,
                            rowSQL: sql(key) { linkSQL(table, own: own, other: other, order: order, destination: checked ? destination : nil) })
                    }
                }
            }
        }
    }

    /// Whether a to-many relationship's targets are those it had: the same objects, and for an
    /// ordered one in the same order.
    private static func holdsTheSame(_ targets: [ManagedObjectID], as committed: [ManagedObjectID], ordered: Bool) -> Bool {
        guard targets.count == committed.count else { return false }
        return ordered ? targets == committed : Set(targets) == Set(committed)
    }

    /// The insert of one link (with its position, in an ordered relationship), which leaves a
    /// link already there as it is (or moves it to its new position). With a `destination`
    /// (where the dialect can keep a row), a link is written only while its target is stored,
    /// and keeps it stored until the save commits: another writer's delete of the target waits,
    /// then removes the link with the target's other links; a target already deleted gets no
    /// link, which reads as none either way. No link ever outlives its target.
    private func linkSQL(_ table: String, own: String, other: String, order: String?, destination: String?) -> String {
        let columns = [own, other] + (order.map { [$0] } ?? [])
        var source = "VALUES (\(dialect.placeholders(columns.count)))"
        if let destination, let keep = dialect.keepsRowClause {
            source = "SELECT \(dialect.placeholders(columns.count)) WHERE EXISTS (SELECT 1 FROM \(dialect.table(destination)) "
                + "WHERE \(dialect.column("Z_PK")) = \(dialect.placeholder(columns.count + 1)) \(keep))"
        }
        let onConflict = order.map { "DO UPDATE SET \(dialect.column($0)) = excluded.\(dialect.column($0))" } ?? "DO NOTHING"
        return "INSERT INTO \(dialect.table(table)) (\(columns.map(dialect.column).joined(separator: ", "))) \(source) "
            + "ON CONFLICT (\(dialect.column(own)), \(dialect.column(other))) \(onConflict)"
    }
}

extension CoreDataTableMapping {
    /// A row's written columns' values, in `columns`' order (positions as
    /// ``RelationalSaveWriter`` changes them): stored attributes, then each to-one's key
    /// (and entity number). Derived attributes a trigger keeps are never written.
    package func writtenValues(of row: Row, entity: Entity, columns: [Int]) -> [SQLValue] {
        var values: [SQLValue] = []
        values.reserveCapacity(columns.count + 6)
        appendWrittenValues(of: row, entity: entity, columns: columns, to: &values)
        return values
    }

    /// ``writtenValues(of:entity:columns:)`` appended to `values`: a save builds one array per
    /// statement.
    package func appendWrittenValues(of row: Row, entity: Entity, columns: [Int], to values: inout [SQLValue]) {
        for column in columns {
            if column < entity.storedAttributeIndices.count {
                let position = entity.storedAttributeIndices[column]
                values.append(
                    CoreDataColumnValues.encode(row.attributes[entity.attributeSlots[position]], allowsExternalStorage: entity.attributeStoresExternally[position]))
            } else {
                let position = column - entity.storedAttributeIndices.count
                guard case .one(let target) = row.relationships[entity.toOneSlots[position]].read else {
                    preconditionFailure("a to-one relationship's slot holds a to-many value")
                }
                values.append(target?.referenceNumber.map(SQLValue.integer) ?? .null)
                if entity.toOneHasEntityColumn[position] {
                    values.append(target.flatMap { entities[$0.entityName] }.map { .integer(Int64($0.number)) } ?? .null)
                }
            }
        }
    }
}
