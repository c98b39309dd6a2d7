import Foundation
import Logging
import OrderedCollections
import PostgresNIO
import Strata

/// Reading: an entity's rows in one statement through a generation's snapshot, their to-many
/// relationships unread (``ToManyBatch``) for a context, read by the statement for the public
/// contract's nodes. Fetches and faults read rows (the package's fast path); the public
/// contract's nodes are made from them.
extension PostgresStore {
    /// The objects of `entity` (not its subentities) that may match `predicate`: what of the
    /// predicate translates to SQL (``SQLFetchCondition``, as on the SQLite store, in
    /// PostgreSQL's dialect) selects them in the query; the context evaluates the whole
    /// predicate again on what comes back, so what does not translate only widens the read.
    package func rows(ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws
        -> [(reference: Int64, row: Row)]
    {
        try rows(of: layout.entity, matching: predicate, with: snapshot, toManysUnread: true)
    }

    package func row(forObject id: ManagedObjectID, layout: EntityLayout, in snapshot: any IncrementalStoreSnapshot) throws -> Row? {
        try row(for: id, targets: .unread(snapshot), in: snapshot)
    }

    /// One object's row, its to-many targets read as `targets` says.
    private func row(for id: ManagedObjectID, targets: TargetsRead, in snapshot: any IncrementalStoreSnapshot) throws -> Row? {
        guard let table = mapping.entities[id.entityName], let reference = referenceObject(for: id) else { return nil }
        return try read(snapshot) { connection in
            try rows(of: table, where: "t.\"Z_PK\" = $2", [.integer(reference)], targets: targets, connection: connection).first?.row
        }
    }

    /// `Z_PK IN (…)`, a ``ReferenceChunks`` chunk per statement.
    package func rows(ofEntity layout: EntityLayout, references: [Int64], in snapshot: any IncrementalStoreSnapshot) throws
        -> [(reference: Int64, row: Row)]
    {
        try rows(ofEntities: [layout], references: references, in: snapshot)?.map { ($0.reference, $0.row) } ?? []
    }

    /// The entities' rows in one statement per ``ReferenceChunks`` chunk (`Z_PK IN (…)`, each
    /// row read by its `Z_ENT`'s columns): a batch of books and ebooks is one round trip, not
    /// one per entity.
    package func rows(ofEntities layouts: [EntityLayout], references: [Int64], in snapshot: any IncrementalStoreSnapshot) throws
        -> [(entity: Int, reference: Int64, row: Row)]?
    {
        guard let (_, members) = hierarchy(layouts) else { return nil }
        return try read(snapshot) { connection in
            try ReferenceChunks.padded(references).flatMap { chunk in
                let keys = "IN (\((0..<chunk.count).map { "$\($0 + 2)" }.joined(separator: ", ")))"
                return try self.rows(ofMembers: members, where: "t.\"Z_PK\" \(keys)", chunk, targets: .unread(snapshot), connection: connection)
                    .map { (entity: $0.member, reference: $0.reference, row: $0.row) }
            }
        }
    }

    /// Counted in SQL when the predicate translates exactly (else the context counts a fetch).
    package func count(ofEntities layouts: [EntityLayout], matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws -> Int? {
        guard let (table, members) = hierarchy(layouts), let (condition, values) = exactCondition(predicate, for: table) else { return nil }
        let sql = "SELECT count(*) FROM \(schema.table(table.table)) t WHERE \(Self.entityScope(members)) AND (\(condition))"
        return try read(snapshot) { connection in
            try connection.rows(sql, [.integer(Int64(table.number))] + values, logger: logger).first?.makeRandomAccess()[0].int64()
        }.map(Int.init)
    }

    /// The mapped entities of `layouts`, the first (whose table they share) apart; `nil` when
    /// the store does not map one of them, or one of them is in another table.
    private func hierarchy(_ layouts: [EntityLayout]) -> (CoreDataTableMapping.Entity, [CoreDataTableMapping.Entity])? {
        let members = layouts.compactMap { mapping.entities[$0.name] }
        guard let first = members.first, members.count == layouts.count, members.allSatisfy({ $0.table == first.table }) else { return nil }
        return (first, members)
    }

    /// `t."Z_ENT" = $1` (the first entity's number, bound), or `IN ($1, …)` with the other
    /// entities' numbers written out (numbers of the mapping, not values from outside).
    private static func entityScope(_ members: [CoreDataTableMapping.Entity]) -> String {
        members.count == 1 ? "t.\"Z_ENT\" = $1" : "t.\"Z_ENT\" IN ($1\(members.dropFirst().map { ", \($0.number)" }.joined()))"
    }

    /// Sorted and windowed in SQL when the predicate translates exactly and every sort key is an
    /// attribute of the entity whose SQL order is the context's: numbers, Booleans and dates;
    /// strings by code point (`COLLATE "C"`); UUIDs by their bytes; empty values first ascending,
    /// last descending. A fetch of the latest 20 of a million rows reads 20.
    package func rows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)]? {
        guard let sorted = sortedRead(of: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit) else { return nil }
        return try read(snapshot) { connection in
            try rows(of: sorted.table, where: sorted.condition, sorted.values, then: sorted.then, targets: .unread(snapshot), connection: connection)
        }
    }

    /// The parts of a sorted, windowed read of `layout`'s entity, for the row read above and the
    /// column read (``storedRows(ofEntity:matching:sortedBy:offset:limit:in:)``): the exact
    /// condition, its values (the window's after them), and what follows it (`ORDER BY`, then
    /// `LIMIT`/`OFFSET` when there is a window); `nil` when the predicate or a sort key does not
    /// translate exactly.
    func sortedRead(
        of layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int
    ) -> (table: CoreDataTableMapping.Entity, condition: String, values: [SQLValue], then: String)? {
        guard let table = mapping.entities[layout.name], let (condition, values) = exactCondition(predicate, for: table),
            let order = ordering(sort, of: table)
        else { return nil }
        guard limit > 0 || offset > 0 else { return (table, condition, values, order) }
        let window = values.count + 2  // the parameter numbers after the condition's
        return (
            table, condition, values + [limit > 0 ? .integer(Int64(limit)) : .null, .integer(Int64(offset))],
            order + " LIMIT $\(window) OFFSET $\(window + 1)"
        )
    }

    /// What the sorted read above would give, across a hierarchy's table, as references only:
    /// two columns of one statement.
    package func references(
        ofEntities layouts: [EntityLayout], matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)],
        offset: Int, limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(entity: String, reference: Int64)]? {
        guard let (table, members) = hierarchy(layouts), let (condition, values) = exactCondition(predicate, for: table),
            let order = ordering(sort, of: table, tieBreak: RelationalTieBreak.terms(members, dialect: dialect))
        else { return nil }
        let window = values.count + 2  // the parameter numbers after the condition's
        let bound = [SQLValue.integer(Int64(table.number))] + values + [limit > 0 ? .integer(Int64(limit)) : .null, .integer(Int64(offset))]
        // A read of the whole table tests no entity (a row of none of them is thrown below): the
        // planner, without statistics yet after an import, would take the Z_ENT index and sort
        // every row rather than walk the sort key's index. $1 stays bound (and typed).
        let scope = mapping.coverTheirTable(members) ? "$1 IS NOT NULL" : Self.entityScope(members)
        let sql = PostgresSQL.typedPlaceholders(
            "SELECT t.\"Z_PK\", t.\"Z_ENT\" FROM \(schema.table(table.table)) t WHERE \(scope) AND (\(condition)) \(order) "
                + "LIMIT $\(window) OFFSET $\(window + 1)",
            bound)
        let names = Dictionary(members.map { (Int64($0.number), $0.layout.name) }, uniquingKeysWith: { first, _ in first })
        return try read(snapshot) { connection in
            let references = ThreadLocked<[(entity: String, reference: Int64)]>([])
            try connection.forEachRow(sql, bound, logger: logger) { row in
                let columns = row.makeRandomAccess()
                guard let reference = try columns[0].int64(), let number = try columns[1].int64(), let name = names[number] else {
                    throw PostgresStoreError(.damagedRow, "\(table.table) has a row of no entity of \(table.layout.name)'s hierarchy")
                }
                references.withLock { $0.append((name, reference)) }
            }
            return references.withLock { $0 }
        }
    }

    /// `ORDER BY` for a sorted read, the context's order in SQL: `nil` when a key is not an
    /// attribute of the entity that PostgreSQL sorts as the context does.
    func ordering(
        _ sort: [(key: String, ascending: Bool)], of table: CoreDataTableMapping.Entity, tieBreak: [String] = ["t.\"Z_PK\""]
    ) -> String? {
        var terms: [String] = []
        for (key, ascending) in sort {
            guard let position = table.attributes.firstIndex(where: { $0.attribute.name == key }),
                SQLDialect.sortableTypes.contains(table.attributeTypes[position])
            else { return nil }
            let column = dialect.column(table.attributes[position].column, of: "t")
            terms.append(dialect.orderTerm(column, isText: table.attributeTypes[position] == .string, ascending: ascending))
        }
        return "ORDER BY \((terms + tieBreak).joined(separator: ", "))"
    }

    /// Grouped in SQL when the request translates exactly (``RelationalGrouping``): what
    /// PostgreSQL cannot add as the evaluator adds (sums and averages) is the context's.
    package func groups(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [StoreGroup]? {
        guard let table = mapping.entities[layout.name],
            let grouping = RelationalGrouping(
                entity: table, mapping: mapping, store: identifier, dialect: dialect, predicate: predicate, groupBy: groupBy,
                properties: properties, sort: sort)
        else { return nil }
        let spaces = spaceCache.spaces(store: identifier)
        return try read(snapshot) { connection in
            var groups: [StoreGroup] = []
            let session = relationalSession(connection)
            try session.forEachRow(grouping.sql, grouping.bindings) { row in
                groups.append(
                    try grouping.group(
                        from: row, spaces: spaces,
                        externalData: { throw PostgresStoreError(.damagedRow, "\(layout.name) names the external file \($0): the store keeps no files") }
                    ) { name, problem in
                        PostgresStoreError(.damagedRow, "\(location): \(layout.name).\(name): \(problem)")
                    })
            }
            return groups
        }
    }

    /// The SQL (parameters from `$2`) and values that select exactly what `predicate` does, or
    /// `nil` when it does not translate exactly.
    func exactCondition(_ predicate: FetchPredicate?, for table: CoreDataTableMapping.Entity) -> (String, [SQLValue])? {
        guard let exact = SQLFetchCondition.exact(predicate, for: table, in: mapping, store: identifier, dialect: dialect) else { return nil }
        return (exact.fragment.sql(in: dialect, firstParameter: 2), exact.fragment.bindings)
    }

    /// The nodes of ``rows(ofEntity:matching:in:)``, for the public contract.
    func fetchNodes(of entity: EntityDescription, matching predicate: FetchPredicate?, with snapshot: (any IncrementalStoreSnapshot)?) throws
        -> [IncrementalStoreNode]
    {
        guard let layout = managedObjectModel.layout(for: entity.name) else { return [] }
        return try rows(of: entity, matching: predicate, with: snapshot).map { reference, row in
            IncrementalStoreNode(objectID: objectID(entity: entity.name, reference: reference), row: row, layout: layout)
        }
    }

    /// One object's values, or `nil` when the snapshot has no such object.
    func node(for objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot) throws -> IncrementalStoreNode? {
        // The node lists every relationship: read with the row, in its statement.
        guard let layout = managedObjectModel.layout(for: objectID.entityName), let row = try row(for: objectID, targets: .perObject, in: snapshot)
        else { return nil }
        return IncrementalStoreNode(objectID: objectID, row: row, layout: layout)
    }

    /// The targets of one to-many relationship of one object (fetches and faults read them with
    /// the object already; this answers a store's caller that asks for one relationship alone).
    func targets(
        of relationship: RelationshipDescription, for objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot
    ) throws -> [ManagedObjectID] {
        try node(for: objectID, with: snapshot)?.relatedObjectIDs[relationship.name] ?? []
    }

    /// `toManysUnread`: to-many relationships left for their first use to read (a context's
    /// fetch), else read by the statement (the public contract's nodes).
    private func rows(
        of entity: EntityDescription, matching predicate: FetchPredicate?, with snapshot: (any IncrementalStoreSnapshot)?, toManysUnread: Bool = false
    ) throws -> [(reference: Int64, row: Row)] {
        guard let table = mapping.entities[entity.name] else {
            throw PersistenceError(.unknownEntity, "the store has no table for the entity '\(entity.name)'")
        }
        let condition = predicate.flatMap { SQLFetchCondition.compile($0, for: table, in: mapping, store: identifier, dialect: dialect) }
        let sql = condition.map { $0.fragment.sql(in: dialect, firstParameter: 2) } ?? "TRUE"
        return try read(snapshot) { connection in
            try rows(
                of: table, where: sql, condition?.fragment.bindings ?? [],
                targets: toManysUnread ? .unread(snapshot) : condition == nil ? .everyOwner : .perObject, connection: connection)
        }
    }

    /// Runs `body` on the snapshot's connection (or, without one, on a pooled connection).
    func read<T>(_ snapshot: (any IncrementalStoreSnapshot)?, _ body: (PostgresConnection) throws -> T) throws -> T {
        if let snapshot = snapshot as? PostgresSnapshot { return try snapshot.read(body) }
        return try pool.withConnection(body)
    }

    /// The objects of `table`'s entity (not its subentities) that `condition` selects (on the
    /// table as `t`; its parameters from `$2`), in the order `ordering` (`ORDER BY …`, if any)
    /// gives, each with every relationship (unless `targets` is `.unread`): to-manys as arrays of the statement itself, so that
    /// a fetch is one round trip to the server.
    ///
    /// A statement with values (a fault, a fetch by a predicate) is prepared on the connection,
    /// once (``PostgresConnectionPool/prepared(_:on:)``): run again with other values, the server
    /// neither parses nor plans it again. A statement of an entity alone reads many rows, for
    /// which that saves nothing measurable: it is sent with its text.
    ///
    /// `targets`: how the statement gathers the objects' to-many targets (``TargetsRead``).
    func rows(
        of table: CoreDataTableMapping.Entity, where condition: String, _ values: [SQLValue], then ordering: String = "",
        targets: TargetsRead = .perObject, connection: PostgresConnection
    ) throws -> [(reference: Int64, row: Row)] {
        try rows(ofMembers: [table], where: condition, values, then: ordering, targets: targets, connection: connection).map { ($0.reference, $0.row) }
    }

    /// ``rows(of:where:_:then:targets:connection:)`` of the objects of several entities of one
    /// table — an entity, then subentities — in one statement: each row with its entity's
    /// position in `members`, read by its own entity's columns.
    func rows(
        ofMembers members: [CoreDataTableMapping.Entity], where condition: String, _ values: [SQLValue], then ordering: String = "",
        targets: TargetsRead = .perObject, connection: PostgresConnection
    ) throws -> [(member: Int, reference: Int64, row: Row)] {
        let select = cachedSelectStatement(for: members, where: condition, targets: targets)
        let batches: [[ToManyBatch]]? = if case .unread(let snapshot) = targets { members.map { unreadTargets(of: $0, through: snapshot) } } else { nil }
        let decoder = MembersDecoder(
            decoders: members.indices.map { RowDecoder(store: self, table: members[$0], unread: batches?[$0]) },
            members: Dictionary(uniqueKeysWithValues: members.enumerated().map { (Int64($1.number), $0) }), positions: select.positions)
        let rows = ThreadLocked<[(member: Int, reference: Int64, row: Row)]>([])
        let bound = [SQLValue.integer(Int64(members[0].number))] + values
        let sql = PostgresSQL.typedPlaceholders(select.sql + (ordering.isEmpty ? "" : " " + ordering), bound)
        if !values.isEmpty, let statement = try pool.prepared(sql, on: connection) {
            try connection.forEachRow(prepared: statement, bound) { result in
                guard let row = try decoder.decode(PreparedStatementCells(result)) else { return }
                rows.withLock { $0.append(row) }
            }
        } else {
            try connection.forEachRow(sql, bound, logger: logger) { result in
                guard let row = try decoder.decode(result.makeRandomAccess()) else { return }
                rows.withLock { $0.append(row) }
            }
        }
        let read = rows.withLock { $0 }
        for (member, memberBatches) in (batches ?? []).enumerated() where !memberBatches.isEmpty {
            let owners = read.compactMap { $0.member == member ? $0.reference : nil }
            for batch in memberBatches { batch.setOwners(owners) }
        }
        return read
    }

    /// A ``ToManyBatch`` per to-many relationship of `table`'s entity: the first use of one of a
    /// read's objects' targets reads every object's (``targets(of:owners:connection:)``), through
    /// `snapshot` while its generation lasts, after it on a pooled connection (the store as it
    /// is then).
    func unreadTargets(of table: CoreDataTableMapping.Entity, through snapshot: (any IncrementalStoreSnapshot)?) -> [ToManyBatch] {
        let weakSnapshot = WeakSnapshot(snapshot)
        return table.toManys.map { toMany in
            ToManyBatch { [weak self] owners in
                guard let self else { throw PersistenceError(.storeNotFound, "the store of these objects was removed") }
                return try read(weakSnapshot.snapshot) { connection in try targets(of: toMany, owners: owners, connection: connection) }
            }
        }
    }

    /// A snapshot held weakly, so that an unread relationship does not keep its generation's
    /// transaction open.
    private struct WeakSnapshot: Sendable {
        weak var snapshot: (any IncrementalStoreSnapshot)?
        init(_ snapshot: (any IncrementalStoreSnapshot)?) { self.snapshot = snapshot }
    }

    /// The targets of `owners` in one to-many relationship, in order, owners without any left
    /// out: one grouped statement, `= ANY($1)` of the owners' keys; past
    /// ``RelationalWriteBatch/rowsPerBatch`` owners, the whole relationship's (the owners of
    /// a fetch of every object), and those of other owners dropped. An owner with a target
    /// outside the relationship's destination (a row no store of this model wrote) is among
    /// the failures: its relationship fails, the others read.
    func targets(
        of toMany: CoreDataTableMapping.ToManySlot, owners: [Int64], connection: PostgresConnection
    ) throws -> ToManyBatch.Read {
        let source = targetSource(of: toMany)
        let withEntities = destinationHasSubentities(toMany)
        let selected = withEntities ? ["\"Z_PK\"", "\"Z_ENT\""] : ["\"Z_PK\""]
        let arrays = selected.map { "array_agg(r.\($0)::bigint ORDER BY \(source.order))" }
        let everyOwner = owners.count > RelationalWriteBatch.rowsPerBatch
        var bindings = PostgresBindings()
        if !everyOwner { bindings.append(owners) }
        let sql = "SELECT \(source.owner), \(arrays.joined(separator: ", ")) \(source.from) "
            + "WHERE \(source.owner) \(everyOwner ? "IS NOT NULL" : "= ANY($1::bigint[])") GROUP BY \(source.owner)"
        let wanted = everyOwner ? Set(owners) : nil
        let spaces = spaceCache.spaces(store: identifier)
        let destination = ObjectIDSpace.make(store: identifier, entityName: toMany.destination)
        var found = ToManyBatch.Read()
        for row in try connection.rows(sql, bindings: bindings, logger: logger) {
            let cells = row.makeRandomAccess()
            guard let owner = try cells[0].int64(), wanted?.contains(owner) ?? true else { continue }
            let keys = try cells[1].int64Array()
            let numbers = withEntities ? try cells[2].int64Array() : []
            // That owner's relationship fails; the others' read as they are.
            if let outside = numbers.first(where: { !toMany.destinationNumbers.contains(Int($0)) }) {
                found.failures[owner] = PostgresStoreError(
                    .damagedRow,
                    "object \(owner)'s \(toMany.destination) relationship names an object of entity number \(outside), which is not "
                        + "its destination's; the row was not written by a store of this model")
                continue
            }
            var targets = OrderedSet<ManagedObjectID>()
            targets.reserveCapacity(keys.count)
            for (position, key) in keys.enumerated() {
                let space = withEntities && position < numbers.count ? spaces[Int(numbers[position])] ?? destination : destination
                targets.append(ManagedObjectID(space: space, number: key))
            }
            found.targets[owner] = targets
        }
        return found
    }

    /// How a read gathers its objects' to-many targets: arrays the statement itself builds, so
    /// that a read is one round trip.
    enum TargetsRead {
        /// A correlated subquery per object and relationship (one index lookup per object): for
        /// a read of a few objects a predicate selects.
        case perObject
        /// One grouped scan of the targets joined to the objects, for a read of every object of
        /// the entity: the server runs it seven times faster than a hundred thousand lookups
        /// (100,000 objects with a to-many: 343 ms against 48 ms in `EXPLAIN ANALYZE`).
        case everyOwner
        /// None: each relationship a ``ToManyBatch`` whose first use reads every row's targets,
        /// through the snapshot while it lasts — Core Data's to-many faults, for a context's reads.
        case unread((any IncrementalStoreSnapshot)?)
    }

    /// ``selectStatement(for:where:targets:)``, made once per entities, condition and kind of
    /// targets read: a batch of faults reads by the same statement each time, and making it was
    /// 7% of reading the batch (walking every author's books). Conditions bind their values,
    /// so the statements are as many as the shapes of the app's reads; past
    /// ``selectStatementsKept`` the cache starts over.
    func cachedSelectStatement(
        for members: [CoreDataTableMapping.Entity], where condition: String, targets read: TargetsRead
    ) -> (sql: String, positions: [[Int]]?) {
        let kind = switch read {
        case .perObject: 0
        case .everyOwner: 1
        case .unread: 2
        }
        let key = SelectStatementKey(members: members.map(\.number), condition: condition, targets: kind)
        if let known = selectStatements.withLock({ $0[key] }) { return known }
        let made = selectStatement(for: members, where: condition, targets: read)
        selectStatements.withLock { statements in
            if statements.count >= Self.selectStatementsKept { statements.removeAll() }
            statements[key] = made
        }
        return made
    }

    /// The statement that reads an entity's objects: `Z_PK`, `Z_OPT`, the attributes, each to-one's
    /// key and entity number, then each to-many's targets in order (with their entity numbers
    /// where the destination has subentities), as arrays the statement itself builds
    /// (``TargetsRead``). For several entities of one table, one statement of `Z_ENT` and the
    /// columns of each (a column they share read once), with `positions`: for each entity, where
    /// the statement has each column its decoder reads; `nil` for one entity, whose columns are
    /// the statement's.
    private func selectStatement(
        for members: [CoreDataTableMapping.Entity], where condition: String, targets read: TargetsRead
    ) -> (sql: String, positions: [[Int]]?) {
        var joins: OrderedDictionary<String, String> = [:]  // a grouped read of targets: its alias
        let memberColumns = members.map { columns(of: $0, targets: read, joins: &joins) }
        // One entity's columns as they are (`NULL::integer` may come twice); several entities'
        // each once, a column they share (an inherited attribute) too.
        var selected: OrderedSet<String> = ["t.\"Z_ENT\""]
        let positions = members.count > 1 ? memberColumns.map { own in own.map { selected.append($0).index } } : nil
        let listed = positions == nil ? memberColumns[0] : Array(selected)
        let joined = joins.map { body, alias in "LEFT JOIN \(body) \(alias) ON \(alias).owner = t.\"Z_PK\"" }
        let sql = "SELECT \(listed.joined(separator: ", ")) FROM \(schema.table(members[0].table)) t \(joined.joined(separator: " ")) "
            + "WHERE \(Self.entityScope(members)) AND (\(condition))"
        return (sql, positions)
    }

    /// The columns an entity's decoder reads, in its order; a grouped read of a to-many's
    /// targets joins the statement once (`joins`: its subquery, then its alias).
    private func columns(of table: CoreDataTableMapping.Entity, targets read: TargetsRead, joins: inout OrderedDictionary<String, String>) -> [String] {
        var columns = ["t.\"Z_PK\"", "t.\"Z_OPT\""] + table.attributes.map { "t." + PostgresSQL.quoted($0.column) }
        for toOne in table.toOnes {
            columns.append("t." + PostgresSQL.quoted(toOne.column))
            columns.append(toOne.entityColumn.map { "t." + PostgresSQL.quoted($0) } ?? "NULL::integer")
        }
        if case .unread = read { return columns }
        for toMany in table.toManys {
            let selected = destinationHasSubentities(toMany) ? ["\"Z_PK\"", "\"Z_ENT\""] : ["\"Z_PK\""]
            let (targets, owner, order) = targetSource(of: toMany)
            let owners: String
            switch read {
            case .unread: continue
            case .perObject:
                for key in selected { columns.append("ARRAY(SELECT r.\(key)::bigint \(targets) WHERE \(owner) = t.\"Z_PK\" ORDER BY \(order))") }
                continue
            case .everyOwner: owners = "IS NOT NULL"
            }
            let arrays = selected.enumerated().map { "array_agg(r.\($1)::bigint ORDER BY \(order)) AS k\($0)" }
            let body = "(SELECT \(owner) AS owner, \(arrays.joined(separator: ", ")) \(targets) WHERE \(owner) \(owners) GROUP BY \(owner))"
            let alias = joins[body] ?? "m\(joins.count)"
            joins[body] = alias
            for position in selected.indices { columns.append("\(alias).k\(position)") }
        }
        return columns
    }

    /// Where a to-many's targets are read from: their rows (as `r`, after `FROM`), the column
    /// naming their owner, and their order.
    private func targetSource(of toMany: CoreDataTableMapping.ToManySlot) -> (from: String, owner: String, order: String) {
        switch toMany.storage {
        case .inverseForeignKey(let destination, let column, let orderColumn):
            return ("FROM \(schema.table(destination)) r", "r.\(PostgresSQL.quoted(column))", "r.\(orderColumn.map(PostgresSQL.quoted) ?? "\"Z_PK\"")")
        case .joinTable(let join, let own, let other, let orderColumn, _, let destination):
            // Joined with the destination, so that a link to an object another server deleted
            // reads as no link, as a fetch through Core Data's join tables does; keys and entity
            // numbers stay aligned.
            return (
                "FROM \(schema.table(join)) j JOIN \(schema.table(destination)) r ON r.\"Z_PK\" = j.\(PostgresSQL.quoted(other))",
                "j.\(PostgresSQL.quoted(own))", "j.\(PostgresSQL.quoted(orderColumn ?? other))"
            )
        }
    }

    /// Whether a to-many's targets may be of several entities, whose numbers the read then needs.
    func destinationHasSubentities(_ toMany: CoreDataTableMapping.ToManySlot) -> Bool {
        toMany.destinationNumbers.count > 1
    }

    /// The ID of the object of `entity` with `reference`.
    func objectID(entity name: String, reference: Int64) -> ManagedObjectID {
        guard let entity = managedObjectModel.entity(named: name) else {
            preconditionFailure("the mapping names an entity the model has not: \(name)")
        }
        return newObjectID(for: entity, referenceObject: reference)
    }
}
