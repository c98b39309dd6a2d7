import Foundation

/// Core Data's `relationshipKeyPathsForPrefetching`: the objects a fetch's objects reach through
/// the named relationships come with the fetch, registered as faults that hold their rows, so
/// that walking the relationships reads nothing more. The rows of the objects one step of a key
/// path reaches are read together: per entity, 200 to a query on the SQL stores, instead of one per
/// object as each fault fires.
extension ObjectGraph {
    /// Checks that each key of each key path names a relationship of the entity the path has
    /// reached (from `layout`, the request's entity).
    ///
    /// - Throws: ``PersistenceError`` `.unsupportedRequest` naming the key that does not.
    func checkPrefetching(_ keyPaths: [String], from layout: EntityLayout) throws {
        for keyPath in keyPaths {
            var current = layout
            for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                guard case .relationship(let index)? = current.slots[key],
                    let next = model.layout(for: current.relationships[index].destinationEntityName)
                else {
                    throw PersistenceError(
                        .unsupportedRequest, "cannot prefetch '\(keyPath)': '\(key)' is not a relationship of the entity '\(current.name)'")
                }
                current = next
            }
        }
    }

    /// Registers the objects `keyPaths` reach from `objects`, each holding its row as read
    /// `time` (see ``ManagedObject/cache(_:at:)``); objects registered already keep what they
    /// have, but a fault that holds no row takes one.
    func prefetch(_ keyPaths: [String], from objects: [ManagedObject], at time: UInt64) {
        var taken: [ManagedObjectID] = []
        defer { announce(taken, registered: true) }
        for keyPath in keyPaths {
            var level = objects
            for key in keyPath.split(separator: ".") {
                var ids: [ManagedObjectID] = []
                var seen: Set<ManagedObjectID> = []
                for object in level where !object.isFault || object.cachedAt != 0 {
                    guard case .relationship(let index)? = object.layout.slots[String(key)] else { continue }
                    for id in object.storage.relationships[index].objectIDs where seen.insert(id).inserted { ids.append(id) }
                }
                generation.prefetch(ids.filter { id in registered[id].map { $0.isFault && $0.cachedAt == 0 } ?? true })
                var next: [ManagedObject] = []
                next.reserveCapacity(ids.count)
                for id in ids {
                    if let object = registered[id] {
                        if object.isFault, object.cachedAt == 0, let row = storedRow(for: id) { object.cache(.row(row), at: time) }
                        next.append(object)
                    } else if let layout = model.layout(for: id.entityName), let row = storedRow(for: id) {
                        let object = register(id: id, stored: nil, layout: layout, announcing: false)
                        object.cache(.row(row), at: time)
                        taken.append(id)
                        next.append(object)
                    }
                }
                level = next
            }
        }
    }
}
