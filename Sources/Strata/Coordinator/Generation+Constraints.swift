import HashTreeCollections

extension Generation {
    /// The stored object, other than `id`, whose values for a uniqueness constraint equal
    /// `values` (found through the index of the constraint's first property), if any.
    /// Objects without a value for every property never clash.
    func object(
        matching values: [AttributeValue?], slots: [Int], constraint: [String], excluding id: ManagedObjectID?,
        store: String, model: ManagedObjectModel, entity: String
    ) -> ManagedObjectID? {
        guard values.allSatisfy({ $0 != nil }), let layout = model.layout(for: entity) else { return nil }
        let root = model.layout(for: layout.rootEntityName) ?? layout
        for name in root.hierarchyNames {
            guard let candidate = model.layout(for: name), candidate.uniquenessConstraints.contains(where: { $0.names == constraint }),
                let table = stores[store]?[name]
            else { continue }
            let references = index(store: store, entity: name, slot: slots[0])?.references(equalTo: values[0])
                ?? table.stored.compactMap { $0.row.attribute(slots[0]) == values[0] ? $0.reference : nil }
            for reference in references {
                let found = ManagedObjectID(entityName: name, key: .permanent(store: store, reference: reference))
                guard found != id, let row = table[stored: reference], slots.map({ row.attribute($0) }) == values else { continue }
                return found
            }
        }
        return nil
    }
}
