/// Each entity's ``ObjectIDSpace`` by entity number, for the store identifier they were made
/// with: a SQL store's reads look them up once per read, not once per row, and make them again
/// only when the store's identifier changes (a store takes its file's UUID when it is added).
package final class ObjectIDSpaceCache: Sendable {
    private let entityNames: [Int: String]
    private let cache = ThreadLocked<(store: String, spaces: [Int: ObjectIDSpace])?>(nil)

    /// `entityNames`: each entity's name by its entity number (`Z_ENT`).
    package init(entityNames: [Int: String]) {
        self.entityNames = entityNames
    }

    /// The spaces of the objects of the store whose identifier is `store`.
    package func spaces(store: String) -> [Int: ObjectIDSpace] {
        cache.withLock { cache in
            if let cache, cache.store == store { return cache.spaces }
            let spaces = entityNames.mapValues { ObjectIDSpace.make(store: store, entityName: $0) }
            cache = (store, spaces)
            return spaces
        }
    }
}
