import Foundation
import OrderedCollections

/// Reading rows: one object's row for a fault, an entity's rows for a fetch, each through the
/// generation's pinned snapshot and by the column mapping the schema was made with.
extension SQLiteStore {
    /// Below this many rows a read that takes the to-many targets with the rows (a migration's
    /// copy; a context's reads leave them unread) reads each row's with a query per row; from
    /// it on, with queries per relationship (``chunkedToManyLimit``).
    static let batchedToManyThreshold = 64
    /// Up to this many rows, a fetch reads their to-many links by their references, 200 to a
    /// query on the relationship's index; past it, one pass over the whole relationship costs less.
    static let chunkedToManyLimit = 10_000

    func readRow(for id: ManagedObjectID, layout: EntityLayout, in snapshot: any IncrementalStoreSnapshot) throws -> Row? {
        guard let snapshot = try readSnapshot(snapshot), let entity = mapping.entities[layout.name],
            let reference = referenceObject(for: id)
        else { return nil }
        let unread = unreadToManys(of: entity, readThrough: snapshot)
        let row = try sqlite {
            try snapshot.read { connection in try readRow(of: entity, reference: reference, unreadToManys: unread, connection: connection) }
        }
        for toMany in unread { toMany.batch.setOwners([reference]) }
        return row
    }

    /// The read transaction a read runs in: the snapshot itself, or for a ``CurrentStateSnapshot``
    /// (the store as it is now: what a save's history reads the row an update starts from in) a
    /// read transaction begun for this read alone.
    private func readSnapshot(_ snapshot: any IncrementalStoreSnapshot) throws -> SQLiteReadSnapshot? {
        if let snapshot = snapshot as? SQLiteReadSnapshot { return snapshot }
        guard snapshot is CurrentStateSnapshot else { return nil }
        return try sqlite { try SQLiteReadSnapshot(pool: pool) }
    }

    /// One object's row as `connection` sees it, its to-many relationships the faults of
    /// `unreadToManys`.
    private func readRow(
        of entity: CoreDataTableMapping.Entity, reference: Int64, unreadToManys: [UnreadToMany], connection: SQLiteConnection
    ) throws -> Row? {
        var row: Row?
        let select = try connection.statement(entity.select(where: "t.Z_PK = ? AND t.Z_ENT = ?"))
        let spaces = idSpaces
        try select.forEachRow([.integer(reference), .integer(Int64(entity.number))]) { statement in
            row = try decode(statement, entity: entity, spaces: spaces, unreadToManys: unreadToManys).row
        }
        return row
    }

    /// The rows of one entity (not its subentities) that may match `predicate`: what of it
    /// translates to SQL (``SQLFetchCondition``) runs in the query; the fetching context
    /// evaluates the whole predicate on what comes back. In `Z_PK` order, so that objects that
    /// tie on a sort key keep one order whether the store or the context sorts them.
    func readRows(
        of layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        guard let entity = mapping.entities[layout.name] else { return [] }
        let condition = predicate.flatMap { SQLFetchCondition.compile($0, for: entity, in: mapping, store: identifier) }
        if condition?.constantValue == false { return [] }
        return try readRows(of: entity, where: condition, ordering: "t.Z_PK", window: nil, toManysUnread: true, in: snapshot)
    }

    /// The rows of the objects among `references` (in `Z_PK` order), a ``ReferenceChunks``
    /// chunk per statement, their to-many relationships unread (a batch per chunk).
    func readRows(
        of layout: EntityLayout, references: [Int64], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        guard let entity = mapping.entities[layout.name] else { return [] }
        var rows: [(reference: Int64, row: Row)] = []
        for chunk in ReferenceChunks.padded(references) {
            rows += try readRows(
                of: entity, sql: referenceSelect(of: entity, count: chunk.count), bindings: [.integer(Int64(entity.number))] + chunk,
                toManysUnread: true, in: snapshot)
        }
        return rows
    }

    /// The statement that reads `count` rows of `entity` by reference, in `Z_PK` order: made
    /// once per entity and chunk length (``ReferenceChunks/lengths``), not per batch of faults
    /// (building it, 200 bound values at a time, was half of reading a batch's rows).
    private func referenceSelect(of entity: CoreDataTableMapping.Entity, count: Int) -> String {
        let key = ReferenceSelectKey(entity: entity.number, count: count)
        if let known = referenceSelects.withLock({ $0[key] }) { return known }
        let placeholders = Array(repeating: "?", count: count).joined(separator: ", ")
        let sql = entity.select(where: "t.Z_ENT = ? AND (t.Z_PK IN (\(placeholders)))") + " ORDER BY t.Z_PK"
        referenceSelects.withLock { $0[key] = sql }
        return sql
    }

    /// The rows that match `predicate` exactly, sorted (by attributes of the entity's own or
    /// reached through to-one relationships) and windowed, all in SQL; `nil` when the predicate
    /// does not translate exactly or a sort key does not sort in SQL as the context sorts it.
    func readRows(
        of layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)]? {
        guard let sorted = sortedSelect(of: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit) else { return nil }
        return try readRows(of: sorted.entity, sql: sorted.sql, bindings: sorted.bindings, toManysUnread: true, in: snapshot)
    }

    /// The statement of a sorted, windowed read of `layout`'s entity, for the row read above and
    /// the column read (``storedRows(ofEntity:matching:sortedBy:offset:limit:in:)``): `nil` when
    /// the predicate or a sort key does not translate exactly. Ties broken by `Z_PK`.
    func sortedSelect(
        of layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int
    ) -> (entity: CoreDataTableMapping.Entity, sql: String, bindings: [SQLValue])? {
        guard let entity = mapping.entities[layout.name], let condition = exactCondition(predicate, for: entity) else { return nil }
        var columns = RelationalJoinedColumns(mapping: mapping, root: entity, dialect: .sqlite)
        guard let ordering = columns.ordering(sort) else { return nil }
        let (sql, bindings) = select(
            of: entity, where: condition.constantValue == true ? nil : condition, ordering: (ordering + ["t.Z_PK"]).joined(separator: ", "),
            joining: columns.joins, window: (offset, limit))
        return (entity, sql, bindings)
    }

    /// The references of the rows ``readRows(of:matching:sortedBy:offset:limit:in:)`` would read,
    /// in its order, without reading the rows, for the entities of `layouts` (an entity and the
    /// subentities a fetch includes, which share its table): one statement of two columns.
    func readReferences(
        of layouts: [EntityLayout], matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(entity: String, reference: Int64)]? {
        guard let (entity, members) = hierarchy(layouts), let condition = exactCondition(predicate, for: entity) else { return nil }
        var columns = RelationalJoinedColumns(mapping: mapping, root: entity, dialect: .sqlite)
        guard let ordering = columns.ordering(sort), let snapshot = snapshot as? SQLiteReadSnapshot else { return nil }
        // A read of the whole table tests no entity: a row of none of them is a damaged file
        // (thrown below), and SQLite then walks a sort key's index rather than the Z_ENT index.
        var scope: SQLFragment = mapping.coverTheirTable(members) ? "1" : Self.entityScope(members)
        if condition.constantValue != true { scope = scope + " AND (\(condition.fragment))" }
        let sql = "SELECT t.Z_PK, t.Z_ENT FROM \(entity.table) t \(columns.joins.joined(separator: " ")) WHERE \(scope.sql(in: .sqlite)) "
            + "ORDER BY \((ordering + RelationalTieBreak.terms(members, dialect: .sqlite)).joined(separator: ", ")) LIMIT ? OFFSET ?"
        let bindings = scope.bindings + [.integer(limit > 0 ? Int64(limit) : -1), .integer(Int64(offset))]
        let names = Dictionary(members.map { (Int64($0.number), $0.layout.name) }, uniquingKeysWith: { first, _ in first })
        let file = fileURL
        return try sqlite {
            try snapshot.read { connection in
                var references: [(entity: String, reference: Int64)] = []
                try connection.statement(sql).forEachRow(bindings) { row in
                    guard let name = names[row.int64(1)] else {
                        throw StoreError(.corruptFile, file: file, "\(entity.table) row \(row.int64(0)) is of no entity of \(entity.layout.name)'s hierarchy")
                    }
                    references.append((name, row.int64(0)))
                }
                return references
            }
        }
    }

    /// How many rows of the entities of `layouts` match `predicate`, counted in SQL; `nil` when it
    /// does not translate exactly.
    func countRows(of layouts: [EntityLayout], matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws -> Int? {
        guard let snapshot = snapshot as? SQLiteReadSnapshot, let (entity, members) = hierarchy(layouts),
            let condition = exactCondition(predicate, for: entity)
        else { return nil }
        return try sqlite {
            try snapshot.read { connection in
                let statement: SQLFragment = "SELECT count(*) FROM \(entity.table) t WHERE " + Self.entityScope(members) + " AND (\(condition.fragment))"
                let count = try connection.scalar(statement.sql(in: .sqlite), statement.bindings)
                guard case .integer(let number)? = count else { return nil }
                return Int(number)
            }
        }
    }

    /// The mapped entities of `layouts`, the first (whose table they share) apart; `nil` when
    /// the store does not map one of them, or one of them is in another table.
    private func hierarchy(_ layouts: [EntityLayout]) -> (CoreDataTableMapping.Entity, [CoreDataTableMapping.Entity])? {
        let members = layouts.compactMap { mapping.entities[$0.name] }
        guard let first = members.first, members.count == layouts.count, members.allSatisfy({ $0.table == first.table }) else { return nil }
        return (first, members)
    }

    /// `t.Z_ENT = n`, or `t.Z_ENT IN (…)` for several entities.
    static func entityScope(_ members: [CoreDataTableMapping.Entity]) -> SQLFragment {
        if members.count == 1 { return "t.Z_ENT = \(bound: .integer(Int64(members[0].number)))" }
        return "t.Z_ENT IN (\(SQLFragment.joined(members.map { "\(bound: .integer(Int64($0.number)))" }, separator: ", ")))"
    }

    /// The condition that selects exactly what `predicate` does (`1` for none); `nil` when it
    /// does not translate exactly.
    func exactCondition(_ predicate: FetchPredicate?, for entity: CoreDataTableMapping.Entity) -> SQLFetchCondition? {
        SQLFetchCondition.exact(predicate, for: entity, in: mapping, store: identifier, dialect: .sqlite)
    }

    /// `toManysUnread`: the rows' to-many relationships are left unread, for the first use of
    /// any of them to read (``unreadToManys(of:readThrough:)``): what a context's fetch
    /// reads, as Core Data's rows hold to-many faults. Otherwise (a migration's copy) they are
    /// read here.
    ///
    /// Read here, a few rows' targets take a query per row; many rows', chunks of their
    /// references up to ``chunkedToManyLimit`` rows, past it one pass over the whole relationship.
    func readRows(
        of entity: CoreDataTableMapping.Entity, where condition: SQLFetchCondition?, ordering: String, joining joins: [String] = [],
        window: (offset: Int, limit: Int)?, toManysUnread: Bool = false, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        let (sql, bindings) = select(of: entity, where: condition, ordering: ordering, joining: joins, window: window)
        return try readRows(of: entity, sql: sql, bindings: bindings, toManysUnread: toManysUnread, in: snapshot)
    }

    /// The statement, and its bindings, that reads the rows of `entity` where `condition` holds,
    /// in `ordering`, windowed.
    func select(
        of entity: CoreDataTableMapping.Entity, where condition: SQLFetchCondition?, ordering: String, joining joins: [String],
        window: (offset: Int, limit: Int)?
    ) -> (sql: String, bindings: [SQLValue]) {
        let scope: SQLFragment = "t.Z_ENT = \(bound: .integer(Int64(entity.number)))" + (condition.map { " AND (\($0.fragment))" } ?? "")
        var sql = entity.select(where: scope.sql(in: .sqlite), extraJoins: joins) + " ORDER BY \(ordering)"
        var bindings = scope.bindings
        if let window {
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(window.limit > 0 ? Int64(window.limit) : -1), .integer(Int64(window.offset))]
        }
        return (sql, bindings)
    }

    /// The rows a statement of ``CoreDataTableMapping/Entity/select(where:extraJoins:)`` for
    /// `entity` reads, with `bindings`; their to-many relationships as `toManysUnread` says
    /// (``readRows(of:where:ordering:joining:window:toManysUnread:in:)``).
    private func readRows(
        of entity: CoreDataTableMapping.Entity, sql: String, bindings: [SQLValue], toManysUnread: Bool, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        guard let snapshot = snapshot as? SQLiteReadSnapshot else { return [] }
        // Unread to-manys are faults each row takes as it is decoded, of batches that read
        // for every row of this read.
        let unread = toManysUnread ? unreadToManys(of: entity, readThrough: snapshot) : []
        let rows: [(reference: Int64, row: Row)] = try sqlite {
            try snapshot.read { connection in
                var rows: [(reference: Int64, row: Row)] = []
                let select = try connection.statement(sql)
                let spaces = idSpaces
                try select.forEachRow(bindings) { statement in
                    rows.append(try decode(statement, entity: entity, spaces: spaces, unreadToManys: unread))
                }
                guard !toManysUnread, !entity.toManys.isEmpty, !rows.isEmpty else { return rows }
                if rows.count < Self.batchedToManyThreshold {
                    for index in rows.indices {
                        for toMany in entity.toManys {
                            rows[index].row.relationships[toMany.slot] = .toMany(
                                try targets(of: toMany, for: rows[index].reference, spaces: spaces, connection: connection))
                        }
                    }
                    return rows
                }
                let positions = Dictionary(rows.indices.map { (rows[$0].reference, $0) }, uniquingKeysWith: { a, _ in a })
                for toMany in entity.toManys {
                    let found = try links(of: toMany, ownedBy: rows.map(\.reference), spaces: spaces, connection: connection)
                    if let failure = found.failures.values.first { throw failure }
                    for (owner, targets) in found.targets {
                        if let index = positions[owner] { rows[index].row.relationships[toMany.slot] = .toMany(targets) }
                    }
                }
                return rows
            }
        }
        if !unread.isEmpty, !rows.isEmpty {
            let owners = rows.map(\.reference)
            for toMany in unread { toMany.batch.setOwners(owners) }
        }
        return rows
    }

    /// One to-many relationship of a read's rows, left unread: its slot, and the batch whose
    /// faults the rows hold.
    struct UnreadToMany {
        let slot: Int
        let batch: ToManyBatch
    }

    /// A ``ToManyBatch`` per to-many relationship of `entity`, whose first use reads every
    /// owner's targets, through `snapshot` while it lasts (the generation the rows came from),
    /// after it through a read transaction of its own. The caller names the owners
    /// (``ToManyBatch/setOwners(_:)``) once every row holds its faults.
    func unreadToManys(of entity: CoreDataTableMapping.Entity, readThrough snapshot: SQLiteReadSnapshot) -> [UnreadToMany] {
        entity.toManys.map { toMany in
            let batch = ToManyBatch { [weak self, weak snapshot] owners in
                guard let self else { throw PersistenceError(.storeNotFound, "the store of these objects was removed") }
                return try sqlite {
                    let reading = try snapshot ?? SQLiteReadSnapshot(pool: pool)
                    return try reading.read { connection in try links(of: toMany, ownedBy: owners, spaces: idSpaces, connection: connection) }
                }
            }
            return UnreadToMany(slot: toMany.slot, batch: batch)
        }
    }

    /// The targets of `owners` in one to-many relationship, in order, owners without any left
    /// out: by chunks of ``ReferenceChunks`` on the relationship's index up to
    /// ``chunkedToManyLimit`` owners, past it one pass over the whole relationship. An owner
    /// with a damaged target (``target(_:keyColumn:toMany:spaces:)``) is among the failures.
    private func links(
        of toMany: CoreDataTableMapping.ToManySlot, ownedBy owners: [Int64], spaces: [Int: ObjectIDSpace], connection: SQLiteConnection
    ) throws -> ToManyBatch.Read {
        let wanted = Set(owners)
        var found = ToManyBatch.Read()
        let chunks: [[SQLValue]?] = owners.count <= Self.chunkedToManyLimit ? ReferenceChunks.padded(owners) : [nil]
        for chunk in chunks {
            try forEachLink(of: toMany, ownedBy: chunk, spaces: spaces, connection: connection) { owner, target in
                // A padded chunk names its last owner more than once: its links come once.
                guard wanted.contains(owner) else { return }
                switch target {
                case .success(let target): found.targets[owner, default: []].append(target)
                case .failure(let error): found.failures[owner] = error
                }
            }
        }
        return found
    }

    // MARK: Decoding

    /// The row a ``CoreDataTableMapping/Entity/select(where:)`` stands on: its to-many
    /// relationships the faults of `unreadToManys`, or still empty for the caller to read.
    ///
    /// - Throws: ``StoreError`` `.danglingReference` for a to-one key naming no object of its
    ///   destination (the file is damaged), `.corruptFile` for a value that does not fit its type.
    func decode(
        _ statement: SQLiteStatement, entity: CoreDataTableMapping.Entity, spaces: [Int: ObjectIDSpace],
        unreadToManys: [UnreadToMany] = []
    ) throws -> (reference: Int64, row: Row) {
        let reference = statement.int64(0)
        // Each array is copied from the layout's empty row (a transient attribute keeps its
        // default) once and then written in place: writing slot after slot through the row
        // checked its uniqueness at every value.
        var attributes = entity.layout.emptyRow.attributes
        var relationships = entity.layout.emptyRow.relationships
        var column: Int32 = 2
        try attributes.withUnsafeMutableBufferPointer { attributes in
            for position in entity.attributeTypes.indices {
                attributes[entity.attributeSlots[position]] = try attributeValue(
                    statement, column: column, position: position, of: entity, reference: reference)
                column += 1
            }
        }
        guard !entity.toOneSlots.isEmpty || !unreadToManys.isEmpty else {
            return (reference, Row(attributes: attributes, relationships: relationships, version: statement.int64(1)))
        }
        try relationships.withUnsafeMutableBufferPointer { relationships in
            for (position, slot) in entity.toOneSlots.enumerated() {
                relationships[slot] = .toOne(
                    try toOneTarget(statement, column: column, position: position, of: entity, reference: reference, spaces: spaces))
                column += 2
            }
            for unread in unreadToManys { relationships[unread.slot] = unread.batch.fault(for: reference) }
        }
        return (reference, Row(attributes: attributes, relationships: relationships, version: statement.int64(1)))
    }

    /// The value of `entity`'s stored attribute at `position`, in `column` of a select's row.
    ///
    /// - Throws: ``StoreError`` `.corruptFile` for a value that does not fit its type.
    func attributeValue(
        _ statement: SQLiteStatement, column: Int32, position: Int, of entity: CoreDataTableMapping.Entity, reference: Int64
    ) throws -> AttributeValue? {
        do {
            let stored = statement.value(column)
            let type = entity.attributeTypes[position]
            // The method as a closure is made (retaining the store) only where it can be
            // called: not once per value of every row.
            return entity.attributeStoresExternally[position]
                ? try CoreDataColumnValues.decode(stored, type: type, allowsExternalStorage: true, externalData: externalData)
                : try CoreDataColumnValues.decode(stored, type: type, allowsExternalStorage: false, externalData: Self.noExternalData)
        } catch let failure as CoreDataColumnValues.Failure {
            let name = entity.attributes[position].attribute.name
            throw StoreError(.corruptFile, file: fileURL, "\(entity.layout.name) p\(reference): \(name): \(failure.description)")
        }
    }

    /// The target of `entity`'s to-one at `position`, whose key and entity number are in
    /// `column` and the one after it of a select's row; `nil` for none.
    ///
    /// - Throws: ``StoreError`` `.danglingReference` for a key naming no object of the
    ///   relationship's destination (the file is damaged).
    func toOneTarget(
        _ statement: SQLiteStatement, column: Int32, position: Int, of entity: CoreDataTableMapping.Entity, reference: Int64,
        spaces: [Int: ObjectIDSpace]
    ) throws -> ManagedObjectID? {
        guard !statement.isNull(column) else { return nil }
        let key = statement.int64(column)
        let number = statement.isNull(column + 1) ? nil : Int(statement.int64(column + 1))
        let toOne = entity.toOnes[position]
        guard let number, toOne.destinationNumbers.contains(number), let space = spaces[number] else {
            throw StoreError(
                .danglingReference, file: fileURL,
                "\(entity.layout.name) p\(reference) points at \(toOne.destination) p\(key) through \(toOne.column), "
                    + (number == nil ? "which the store does not hold" : "but that row is of entity \(number ?? 0)")
                    + ": the file is damaged; restore it from a backup")
        }
        return ManagedObjectID(space: space, number: key)
    }

    /// Each entity's ID space, by entity number: looked up once per read, not once per row.
    var idSpaces: [Int: ObjectIDSpace] { spaceCache.spaces(store: identifier) }

    /// The targets of one object's to-many relationship, in order when it is ordered.
    private func targets(
        of toMany: CoreDataTableMapping.ToManySlot, for reference: Int64, spaces: [Int: ObjectIDSpace], connection: SQLiteConnection
    ) throws -> OrderedSet<ManagedObjectID> {
        var targets = OrderedSet<ManagedObjectID>()
        let sql: String
        switch toMany.storage {
        case .inverseForeignKey(let table, let column, let order):
            sql = "SELECT Z_PK, Z_ENT FROM \(table) WHERE \(column) = ?" + (order.map { " ORDER BY \($0), Z_PK" } ?? "")
        case .joinTable(let table, let own, let other, let order, _, let destinationTable):
            sql = "SELECT t.Z_PK, t.Z_ENT FROM \(table) j JOIN \(destinationTable) t ON t.Z_PK = j.\(other) WHERE j.\(own) = ?"
                + (order.map { " ORDER BY j.\($0), t.Z_PK" } ?? "")
        }
        try connection.statement(sql).forEachRow([.integer(reference)]) { statement in
            targets.append(try target(statement, keyColumn: 0, toMany: toMany, spaces: spaces))
        }
        return targets
    }

    /// Every (owner, target) link of a to-many relationship in the store — or of the `owners`
    /// given only — owners together and each owner's targets in order.
    private func forEachLink(
        of toMany: CoreDataTableMapping.ToManySlot, ownedBy owners: [SQLValue]?, spaces: [Int: ObjectIDSpace], connection: SQLiteConnection,
        _ body: (Int64, Result<ManagedObjectID, any Error>) throws -> Void
    ) throws {
        let sql: String
        let ownerTest = owners.map { " IN (" + Array(repeating: "?", count: $0.count).joined(separator: ", ") + ")" }
        switch toMany.storage {
        case .inverseForeignKey(let table, let column, let order):
            sql = "SELECT \(column), Z_PK, Z_ENT FROM \(table) WHERE \(column) \(ownerTest ?? "IS NOT NULL") ORDER BY \(column)"
                + (order.map { ", \($0)" } ?? "") + ", Z_PK"
        case .joinTable(let table, let own, let other, let order, _, let destinationTable):
            sql = "SELECT j.\(own), t.Z_PK, t.Z_ENT FROM \(table) j JOIN \(destinationTable) t ON t.Z_PK = j.\(other)"
                + (ownerTest.map { " WHERE j.\(own)\($0)" } ?? "") + " ORDER BY j.\(own)" + (order.map { ", j.\($0)" } ?? "") + ", t.Z_PK"
        }
        try connection.statement(sql).forEachRow(owners ?? []) { statement in
            try body(statement.int64(0), Result { try target(statement, keyColumn: 1, toMany: toMany, spaces: spaces) })
        }
    }

    /// The object whose `Z_PK` is at `keyColumn` and `Z_ENT` right after it.
    ///
    /// - Throws: ``StoreError`` `.danglingReference` when the row is of an entity outside the
    ///   relationship's destination (a damaged file), as for a to-one: an object of another class
    ///   among the targets would trap whoever reads them as the destination's.
    private func target(
        _ statement: SQLiteStatement, keyColumn: Int32, toMany: CoreDataTableMapping.ToManySlot, spaces: [Int: ObjectIDSpace]
    ) throws -> ManagedObjectID {
        let number = Int(statement.int64(keyColumn + 1))
        guard toMany.destinationNumbers.contains(number) else {
            throw StoreError(
                .danglingReference, file: fileURL,
                "a \(toMany.destination) relationship holds p\(statement.int64(keyColumn)), a row of entity \(number): the file is damaged; restore it from a backup")
        }
        guard let space = spaces[number] else {
            return objectID(entity: toMany.destination, reference: statement.int64(keyColumn))
        }
        return ManagedObjectID(space: space, number: statement.int64(keyColumn))
    }

    func objectID(entity: String, reference: Int64) -> ManagedObjectID {
        ManagedObjectID(space: ObjectIDSpace.make(store: identifier, entityName: entity), number: reference)
    }

    /// What decoding a value without external storage is given for external data: never
    /// called (only a Binary attribute that allows external storage reads a file).
    private static func noExternalData(_ name: String) -> AttributeValue { .binaryData(Data()) }

    /// An externally stored value: `.<store name>_SUPPORT/_EXTERNAL_DATA/<UUID>` beside the store;
    /// a file that cannot be read is that value's problem alone (``ExternalDataReference``).
    func externalData(_ name: String) -> AttributeValue {
        let file = Self.externalDataFile(name, store: fileURL)
        do {
            return .binaryData(try Data(contentsOf: file))
        } catch {
            let reason = FileManager.default.fileExists(atPath: file.path) ? error.localizedDescription : "the file is missing"
            return .externalDataReference(ExternalDataReference(name: name, fileURL: file, reason: reason))
        }
    }

    /// Where Core Data keeps the externally stored value `name` of the store at `store`.
    package static func externalDataFile(_ name: String, store: URL) -> URL {
        externalDataFolder(of: store).appendingPathComponent(name)
    }
}
