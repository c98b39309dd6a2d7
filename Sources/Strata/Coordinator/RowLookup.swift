import HashTreeCollections

/// Finds the rows of many objects one after another, keeping the table of the last one at
/// hand: a save's objects, and the targets of their relationships, are mostly of one or two
/// entities, and comparing two strings that share their storage costs less than two
/// string-keyed lookups per object.
struct RowLookup {
    private let stores: [String: [String: Generation.Table]]
    private let created: [TableEdits.Table: ReferenceMembership]
    private var last: (store: String, entity: String, table: Generation.Table, created: ReferenceMembership?)?

    /// - Parameter created: the objects a save creates, by table, if it is known: for those,
    ///   ``contains(_:)`` need not walk the table's hash tree.
    init(stores: [String: [String: Generation.Table]], created: [TableEdits.Table: ReferenceMembership] = [:]) {
        self.stores = stores
        self.created = created
    }

    mutating func row(for id: ManagedObjectID) -> Row? {
        guard case .permanent(let store, let reference) = id.key else { return nil }
        return table(store: store, entity: id.entityName).table[reference]
    }

    mutating func contains(_ id: ManagedObjectID) -> Bool {
        guard case .permanent(let store, let reference) = id.key else { return false }
        let (table, created) = table(store: store, entity: id.entityName)
        return created?.contains(reference) == true || table[reference] != nil
    }

    private mutating func table(store: String, entity: String) -> (table: Generation.Table, created: ReferenceMembership?) {
        if let last, last.entity == entity, last.store == store { return (last.table, last.created) }
        let table = stores[store]?[entity] ?? [:]
        let createdHere = created[TableEdits.Table(store: store, entity: entity)]
        last = (store, entity, table, createdHere)
        return (table, createdHere)
    }
}
