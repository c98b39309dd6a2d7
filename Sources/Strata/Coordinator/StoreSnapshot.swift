import OrderedCollections
import Logging

/// One incremental store's part of a generation: the snapshot the store pinned for it, and the
/// rows read through that snapshot so far, so that an object is read from the store once per
/// generation however many contexts fault it. Let go with the last generation that holds it.
final class StoreSnapshot: Sendable {
    let store: IncrementalStore
    let snapshot: any IncrementalStoreSnapshot
    private let cache = ThreadLocked<[ManagedObjectID: Row]>([:])
    /// How many contexts hold a generation with this snapshot (``hold()``).
    private let holders = ThreadLocked(0)
    private static let logger = Logger(label: "strata.store-snapshot")

    init(store: IncrementalStore) throws {
        self.store = store
        snapshot = try store.newSnapshot()
    }

    /// A context holds a generation with this snapshot, to read it or pinned to it: the store's
    /// snapshot is told when the first begins (``IncrementalStoreSnapshot/contextsBeganHolding()``).
    func hold() {
        holders.withLock { count in
            count += 1
            if count == 1 { snapshot.contextsBeganHolding() }
        }
    }

    /// A context let go of a generation with this snapshot: the store's snapshot is told when
    /// the last has (``IncrementalStoreSnapshot/contextsStoppedHolding()``).
    func letGo() {
        holders.withLock { count in
            count -= 1
            if count == 0 { snapshot.contextsStoppedHolding() }
        }
    }

    /// The stored row of an object, or `nil` when the store has no such object. A store that
    /// fails to read says why in the log, and the object stays a fault (as one the store lost).
    func row(for id: ManagedObjectID) -> Row? {
        if let row = cache.withLock({ $0[id] }) { return row }
        guard let layout = store.managedObjectModel.layout(for: id.entityName) else { return nil }
        do {
            guard let row = try store.row(for: id, layout: layout, in: snapshot) else { return nil }
            cache.withLock { $0[id] = row }
            return row
        } catch {
            Self.logger.error("cannot read an object from its store", metadata: ["object": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    /// Reads the rows of those of `ids` not read through this snapshot yet, together (a query
    /// per entity on SQLite, per hierarchy on PostgreSQL): a fetch's prefetching, after which faulting them
    /// reads nothing more. A store that fails to read says why in the log; the objects are
    /// then read one at a time when they fire, as without prefetching.
    func prefetch(_ ids: [ManagedObjectID]) {
        let missing = cache.withLock { cache in ids.filter { cache[$0] == nil } }
        let rows = rowsReadTogether(missing)
        cache.withLock { cache in
            for (id, row) in rows { cache[id] = row }
        }
    }

    /// Keeps rows read through this snapshot, for ``row(for:)``.
    func keep(_ rows: [(ManagedObjectID, Row)]) {
        guard !rows.isEmpty else { return }
        cache.withLock { cache in
            for (id, row) in rows { cache[id] = row }
        }
    }

    /// Those of `ids` whose rows were read through this snapshot already.
    func holding(_ ids: [ManagedObjectID]) -> Set<ManagedObjectID> {
        cache.withLock { cache in Set(ids.filter { cache[$0] != nil }) }
    }

    /// The rows of those of `ids` read through this snapshot already; reads nothing.
    func rowsRead(_ ids: [ManagedObjectID]) -> [ManagedObjectID: Row] {
        cache.withLock { cache in
            var rows: [ManagedObjectID: Row] = [:]
            for id in ids { if let row = cache[id] { rows[id] = row } }
            return rows
        }
    }

    /// The rows of `ids`, read together (a query per 200 objects and entity on SQLite, and
    /// hierarchy on PostgreSQL), not kept here; those read through this snapshot already are taken from the
    /// cache. A store that fails to read says why in the log; those objects are left out, and
    /// are read one at a time when they fire.
    func rowsReadTogether(_ ids: [ManagedObjectID]) -> [(ManagedObjectID, Row)] {
        var rows: [(ManagedObjectID, Row)] = []
        var wanted: [String: [Int64]] = [:]
        cache.withLock { cache in
            for id in ids {
                if let row = cache[id] {
                    rows.append((id, row))
                } else if let reference = store.referenceObject(for: id) {
                    wanted[id.entityName, default: []].append(reference)
                }
            }
        }
        // The entities of one hierarchy (one table on the SQL stores) are read together.
        var hierarchies: OrderedDictionary<String, [(layout: EntityLayout, references: [Int64])]> = [:]
        for (entityName, references) in wanted {
            guard let layout = store.managedObjectModel.layout(for: entityName) else { continue }
            hierarchies[layout.rootEntityName, default: []].append((layout, references))
        }
        for members in hierarchies.values {
            do {
                let spaces = members.map { ObjectIDSpace.make(store: store.identifier, entityName: $0.layout.name) }
                for (member, reference, row) in try self.rows(of: members) {
                    rows.append((ManagedObjectID(space: spaces[member], number: reference), row))
                }
            } catch {
                Self.logger.error(
                    "cannot read objects from their store together", metadata: ["entity": "\(members.map(\.layout.name))", "error": "\(error)"])
            }
        }
        return rows
    }

    /// The rows of the objects of `members` (entities of one hierarchy, each with references of
    /// its objects), each with its entity's position in `members`: in one read where the store
    /// reads a hierarchy together, else an entity at a time. Not kept here.
    func rows(of members: [(layout: EntityLayout, references: [Int64])]) throws -> [(entity: Int, reference: Int64, row: Row)] {
        if members.count > 1, let store = store as? any RowReadingStore,
            let rows = try store.rows(ofEntities: members.map(\.layout), references: members.flatMap(\.references), in: snapshot)
        {
            return rows
        }
        return try members.enumerated().flatMap { position, member in
            try store.rows(of: member.layout, references: member.references, in: snapshot).map { (position, $0.reference, $0.row) }
        }
    }

    /// The store's references for a sorted, windowed read of `layouts` (an entity, then the
    /// subentities the read includes) without their rows, when it has them (see
    /// `RowReadingStore.references(ofEntities:matching:sortedBy:offset:limit:in:)`).
    func references(
        of layouts: [EntityLayout], matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int
    ) throws -> [(entity: String, reference: Int64)]? {
        try (store as? any RowReadingStore)?.references(
            ofEntities: layouts, matching: predicate, sortedBy: sort, offset: offset, limit: limit, in: snapshot)
    }

    /// The rows of the objects of one entity among `references`, read together; those the store
    /// does not have are left out. Not kept here: a fetch gives them to its objects.
    func rows(of layout: EntityLayout, references: [Int64]) throws -> [(reference: Int64, row: Row)] {
        try store.rows(of: layout, references: references, in: snapshot)
    }

    /// The store's own sorted and windowed answer, when it has one (see
    /// `IncrementalStore.rows(of:matching:sortedBy:offset:limit:in:)`).
    func rows(
        of layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int, limit: Int
    ) throws -> [(reference: Int64, row: Row)]? {
        try store.rows(of: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit, in: snapshot)
    }

    /// ``rows(of:matching:sortedBy:offset:limit:)`` as the store keeps them, many in columns,
    /// when it reads so (``ColumnReadingStore``).
    func storedRows(
        of layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int, limit: Int
    ) throws -> [(reference: Int64, stored: StoredRow)]? {
        try (store as? any ColumnReadingStore)?.storedRows(
            ofEntity: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit, in: snapshot)
    }

    /// The store's own groups for a dictionary fetch, when it has them.
    func groups(
        of layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)]
    ) throws -> [[String: EvaluationValue]]? {
        try store.groups(of: layout, matching: predicate, groupBy: groupBy, properties: properties, sortedBy: sort, in: snapshot)
    }

    /// The store's own count of the objects of `layouts` (an entity, then the subentities the
    /// count includes), when it has one.
    func count(of layouts: [EntityLayout], matching predicate: FetchPredicate?) throws -> Int? {
        try (store as? any RowReadingStore)?.count(ofEntities: layouts, matching: predicate, in: snapshot)
    }

    /// Every object of one entity (not its subentities) that may match `predicate`.
    func rows(of layout: EntityLayout, matching predicate: FetchPredicate?) throws -> [(reference: Int64, row: Row)] {
        let rows = try store.rows(of: layout, matching: predicate, in: snapshot)
        let space = ObjectIDSpace.make(store: store.identifier, entityName: layout.name)
        cache.withLock { cache in
            cache.reserveCapacity(cache.count + rows.count)
            for (reference, row) in rows { cache[ManagedObjectID(space: space, number: reference)] = row }
        }
        return rows
    }
}
