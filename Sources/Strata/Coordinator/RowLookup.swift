import HashTreeCollections

/// Finds the rows of many objects one after another, keeping the table of the last one at
/// hand: a save's objects, and the targets of their relationships, are mostly of one or two
/// entities, and checking that an ID is in the same (interned) ID space as the last costs less
/// than two string-keyed lookups per object.
struct RowLookup {
    private let stores: [String: [String: Generation.Table]]
    private let created: [TableEdits.Table: ReferenceMembership]
    private var last: (space: ObjectIDSpace, table: Generation.Table, created: ReferenceMembership?)?

    /// - Parameter created: the objects a save creates, by table, if it is known: for those,
    ///   ``contains(_:)`` need not walk the table's hash tree.
    init(stores: [String: [String: Generation.Table]], created: [TableEdits.Table: ReferenceMembership] = [:]) {
        self.stores = stores
        self.created = created
    }

    mutating func row(for id: ManagedObjectID) -> Row? {
        guard let reference = id.referenceNumber else { return nil }
        return table(of: id).table[reference]
    }

    /// Whether the save creates the object (known only for the tables `created` names).
    mutating func isCreated(_ id: ManagedObjectID) -> Bool {
        guard let reference = id.referenceNumber else { return false }
        return table(of: id).created?.contains(reference) == true
    }

    mutating func contains(_ id: ManagedObjectID) -> Bool {
        guard let reference = id.referenceNumber else { return false }
        let (table, created) = table(of: id)
        return created?.contains(reference) == true || table[reference] != nil
    }

    /// The table of a permanent ID's store and entity.
    private mutating func table(of id: ManagedObjectID) -> (table: Generation.Table, created: ReferenceMembership?) {
        if let last, last.space === id.space { return (last.table, last.created) }
        let store = id.persistentStoreIdentifier ?? ""
        let table = stores[store]?[id.entityName] ?? [:]
        let createdHere = created[TableEdits.Table(store: store, entity: id.entityName)]
        last = (id.space, table, createdHere)
        return (table, createdHere)
    }
}
