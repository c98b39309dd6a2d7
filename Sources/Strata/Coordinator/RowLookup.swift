import HashTreeCollections

/// Finds the rows of many objects one after another, keeping the table of the last one at
/// hand: a save's objects, and the targets of their relationships, are mostly of one or two
/// entities, and comparing two strings that share their storage costs less than two
/// string-keyed lookups per object.
struct RowLookup {
    private let stores: [String: [String: Generation.Table]]
    private var last: (store: String, entity: String, table: Generation.Table)?

    init(stores: [String: [String: Generation.Table]]) {
        self.stores = stores
    }

    mutating func row(for id: ManagedObjectID) -> Row? {
        guard case .permanent(let store, let reference) = id.key else { return nil }
        if let last, last.entity == id.entityName, last.store == store {
            return last.table[reference]
        }
        let table = stores[store]?[id.entityName] ?? [:]
        last = (store, id.entityName, table)
        return table[reference]
    }

    mutating func contains(_ id: ManagedObjectID) -> Bool {
        row(for: id) != nil
    }
}
