/// An immutable snapshot of every store's objects: what one commit left behind.
///
/// For each store and entity, a persistent map from reference number to row (``RowTable``). A
/// commit makes the next generation by changing only the rows it touches: the table shares
/// everything else with the previous generation, so a commit costs O(changed · log n)
/// (amortised, with the table's folds), not a copy of the tables. Contexts read the generation they are pinned to without a lock or an
/// await, and never see a half-done save.
struct Generation: Sendable {
    typealias Table = RowTable

    /// Grows by one with every commit.
    let number: UInt64
    /// Store identifier → entity name → rows.
    var stores: [String: [String: Table]]
    /// Store identifier → entity name → attribute slot → index, for the indexed attributes.
    var indexes: [String: [String: [Int: AttributeIndex]]] = [:]
    /// Incremental store identifier → the snapshot this generation reads that store through.
    /// (Atomic stores' objects are in `stores`; an incremental store's stay in the store.)
    var snapshots: [String: StoreSnapshot] = [:]
    /// The sorted orders of this generation's atomic tables fetches have needed (each
    /// generation makes its own: an order is of the tables it was made from).
    let sortedOrders = SortedOrders()

    static var empty: Generation { Generation(number: 0, stores: [:]) }

    func row(for id: ManagedObjectID) -> Row? {
        guard case .permanent(let store, let reference) = id.key else { return nil }
        if let snapshot = snapshots[store] { return snapshot.row(for: id) }
        return stores[store]?[id.entityName]?[reference]
    }

    /// Reads the rows of `ids` that are in incremental stores together, ahead of
    /// ``row(for:)`` (an atomic store's are in memory already).
    func prefetch(_ ids: [ManagedObjectID]) {
        var byStore: [String: [ManagedObjectID]] = [:]
        for id in ids {
            if case .permanent(let store, _) = id.key, snapshots[store] != nil { byStore[store, default: []].append(id) }
        }
        for (store, ids) in byStore { snapshots[store]?.prefetch(ids) }
    }

    /// The rows of `ids` read together (per store and entity, 200 to a query on the SQL stores)
    /// and not kept in the generation: a batch of a fetch with a batch size, whose objects hold
    /// their rows themselves. Rows of atomic stores are taken from memory; objects the
    /// generation does not have are left out.
    ///
    /// The rows of `alongside` (objects of incremental stores) are read in the same queries and
    /// kept in the generation, where ``row(for:)`` finds them, rather than returned.
    func rowsReadTogether(_ ids: [ManagedObjectID], keeping alongside: [ManagedObjectID] = []) -> [ManagedObjectID: Row] {
        var rows: [ManagedObjectID: Row] = [:]
        var byStore: [String: [ManagedObjectID]] = [:]
        for id in ids {
            guard case .permanent(let store, _) = id.key else { continue }
            if snapshots[store] != nil { byStore[store, default: []].append(id) } else { rows[id] = row(for: id) }
        }
        for id in alongside {
            if case .permanent(let store, _) = id.key, snapshots[store] != nil { byStore[store, default: []].append(id) }
        }
        let kept = Set(alongside)
        for (store, ids) in byStore {
            guard let snapshot = snapshots[store] else { continue }
            var keeping: [(ManagedObjectID, Row)] = []
            for (id, row) in snapshot.rowsReadTogether(ids) {
                if kept.contains(id) { keeping.append((id, row)) } else { rows[id] = row }
            }
            snapshot.keep(keeping)
        }
        return rows
    }

    /// Those of `ids` whose rows the generation has not read from their incremental store yet,
    /// in their order (objects of atomic stores are always read: they are in memory).
    func notReadYet(_ ids: [ManagedObjectID]) -> [ManagedObjectID] {
        var held = Set<ManagedObjectID>()
        for (store, ids) in ids.groupedByStore() {
            if let snapshot = snapshots[store] { held.formUnion(snapshot.holding(ids)) }
        }
        guard !held.isEmpty else { return ids }
        return ids.filter { !held.contains($0) }
    }

    /// The rows of those of `ids` in incremental stores that were read through this generation
    /// already (a neighbour's batch read them); reads nothing.
    func rowsRead(_ ids: [ManagedObjectID]) -> [ManagedObjectID: Row] {
        var rows: [ManagedObjectID: Row] = [:]
        for (store, ids) in ids.groupedByStore() {
            if let snapshot = snapshots[store] { rows.merge(snapshot.rowsRead(ids)) { first, _ in first } }
        }
        return rows
    }

    /// ``row(for:)`` where it is stored, for a commit's checks: reading a version or one
    /// relationship of a row in a table's columns makes no ``Row``.
    func storedRow(for id: ManagedObjectID) -> StoredRow? {
        guard case .permanent(let store, let reference) = id.key else { return nil }
        if let snapshot = snapshots[store] { return snapshot.row(for: id).map(StoredRow.row) }
        return stores[store]?[id.entityName]?[stored: reference]
    }

    /// The rows of one entity (not its subentities) in one store.
    func table(store: String, entity: String) -> Table {
        stores[store]?[entity] ?? [:]
    }

    func next(stores: [String: [String: Table]], indexes: [String: [String: [Int: AttributeIndex]]]) -> Generation {
        Generation(number: number + 1, stores: stores, indexes: indexes, snapshots: snapshots)
    }

    /// The next generation, reading incremental stores through `snapshots` (the others' as before).
    func next(replacing snapshots: [String: StoreSnapshot]) -> Generation {
        Generation(number: number + 1, stores: stores, indexes: indexes, snapshots: self.snapshots.merging(snapshots) { $1 })
    }

    /// The index of an attribute slot of an entity in a store, if it has one.
    func index(store: String, entity: String, slot: Int) -> AttributeIndex? {
        indexes[store]?[entity]?[slot]
    }

    /// Indexes for every indexed attribute of a store's tables.
    static func buildIndexes(for tables: [String: Table], model: ManagedObjectModel) -> [String: [Int: AttributeIndex]] {
        var indexes: [String: [Int: AttributeIndex]] = [:]
        for (entity, table) in tables {
            guard let layout = model.layout(for: entity) else { continue }
            for slot in layout.indexedAttributes {
                indexes[entity, default: [:]][slot] = AttributeIndex(table: table, slot: slot)
            }
        }
        return indexes
    }
}
