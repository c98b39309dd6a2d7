import HashTreeCollections

/// An immutable snapshot of every store's objects: what one commit left behind.
///
/// For each store and entity, a persistent map from reference number to row. A commit makes
/// the next generation by changing only the rows it touches: `TreeDictionary` shares
/// everything else with the previous generation, so a commit costs O(changed · log n), not a
/// copy of the tables. Contexts read the generation they are pinned to without a lock or an
/// await, and never see a half-done save.
struct Generation: Sendable {
    typealias Table = TreeDictionary<Int64, Row>

    /// Grows by one with every commit.
    let number: UInt64
    /// Store identifier → entity name → rows.
    var stores: [String: [String: Table]]

    static let empty = Generation(number: 0, stores: [:])

    func row(for id: ManagedObjectID) -> Row? {
        guard case .permanent(let store, let reference) = id.key else { return nil }
        return stores[store]?[id.entityName]?[reference]
    }

    /// The rows of one entity (not its subentities) in one store.
    func table(store: String, entity: String) -> Table {
        stores[store]?[entity] ?? [:]
    }

    func next(stores: [String: [String: Table]]) -> Generation {
        Generation(number: number + 1, stores: stores)
    }
}
