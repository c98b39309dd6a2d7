import HashTreeCollections

/// Answers "is this object in these tables?" for many objects in a row, keeping the table of the
/// last one at hand: the targets of a save's relationships are mostly of one or two entities,
/// and comparing two strings that share their storage costs less than two string-keyed lookups
/// per target.
struct RowLookup {
    private let stores: [String: [String: Generation.Table]]
    private var last: (store: String, entity: String, table: Generation.Table)?

    init(stores: [String: [String: Generation.Table]]) {
        self.stores = stores
    }

    mutating func contains(_ id: ManagedObjectID) -> Bool {
        guard case .permanent(let store, let reference) = id.key else { return false }
        if let last, last.entity == id.entityName, last.store == store {
            return last.table[reference] != nil
        }
        let table = stores[store]?[id.entityName] ?? [:]
        last = (store, id.entityName, table)
        return table[reference] != nil
    }
}
