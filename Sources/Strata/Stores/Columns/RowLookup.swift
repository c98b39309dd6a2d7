/// Finds the rows of many objects one after another, keeping the table of the last one at
/// hand: a save's objects, and the targets of their relationships, are mostly of one or two
/// entities, and checking that an ID is in the same (interned) ID space as the last costs less
/// than two string-keyed lookups per object.
struct RowLookup {
    private let stores: [String: [String: Generation.Table]]
    private let created: [TableEdits.Table: ReferenceMembership]
    // The last ID space looked up, its table and created set: stored apart rather than
    // returned, so that a lookup reads them in place instead of copying the table's storage.
    private var lastSpace: ObjectIDSpace?
    private var lastTable = Generation.Table()
    private var lastCreated: ReferenceMembership?

    /// - Parameter created: the objects a save creates, by table, if it is known: for those,
    ///   ``contains(_:)`` need not search the table.
    init(stores: [String: [String: Generation.Table]], created: [TableEdits.Table: ReferenceMembership] = [:]) {
        self.stores = stores
        self.created = created
    }

    /// The object's row where it is stored (nothing copied out of a table's columns).
    mutating func row(for id: ManagedObjectID) -> StoredRow? {
        guard let reference = id.referenceNumber else { return nil }
        select(id.space)
        return lastTable[stored: reference]
    }

    /// Where the object's row is in the base of its table's columns, if it is there (not in
    /// the overlay of later changes, nor in an incremental store).
    mutating func basePosition(of id: ManagedObjectID) -> (StoredColumns, Int)? {
        guard let reference = id.referenceNumber else { return nil }
        select(id.space)
        guard case .column(let columns, let position)? = lastTable[stored: reference] else { return nil }
        return (columns, position)
    }

    /// Whether the save creates the object (known only for the tables `created` names).
    mutating func isCreated(_ id: ManagedObjectID) -> Bool {
        guard let reference = id.referenceNumber else { return false }
        select(id.space)
        return lastCreated?.contains(reference) == true
    }

    mutating func contains(_ id: ManagedObjectID) -> Bool {
        guard let reference = id.referenceNumber else { return false }
        select(id.space)
        return lastCreated?.contains(reference) == true || lastTable.contains(reference)
    }

    /// Makes the table of a permanent ID space the one at hand.
    private mutating func select(_ space: ObjectIDSpace) {
        guard lastSpace !== space else { return }
        let store = space.store ?? ""
        lastSpace = space
        lastTable = stores[store]?[space.entityName] ?? [:]
        lastCreated = created[TableEdits.Table(store: store, entity: space.entityName)]
    }
}
