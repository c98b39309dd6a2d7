/// An observed object inside its context: after each change the context announces that
/// touches it, leaves the keys whose values changed (or its deletion) in `state` and wakes the
/// observer. Held by the context's graph until the observer stops.
final class ObjectObservation: ContextChangeObserver {
    struct State: Sendable {
        var changedKeys: Set<String> = []
        var isDeleted = false
    }

    private var objectID: ManagedObjectID
    /// The context's object, while it holds it: followed by identity, so that a save giving it
    /// a permanent ID does not lose it.
    private weak var object: ManagedObject?
    /// The values the observer was last told of.
    private var values: Row?
    private let state: ThreadLocked<State>
    private let wake: AsyncStream<Void>.Continuation

    init(objectID: ManagedObjectID, state: ThreadLocked<State>, wake: AsyncStream<Void>.Continuation) {
        self.objectID = objectID
        self.state = state
        self.wake = wake
    }

    deinit {
        wake.finish()
    }

    /// Reads the object's values and starts following it.
    ///
    /// - Throws: ``PersistenceError`` `.objectNotFound` when the object does not exist.
    func start(in graph: ObjectGraph) throws {
        let object = try existing(in: graph)
        self.object = object
        values = Self.read(object.storage)
        graph.addChangeObserver(self)
    }

    func contextDidChange(objects: [ManagedObject], elsewhere: Set<ManagedObjectID>, in graph: ObjectGraph) {
        if let object, object.graph === graph { objectID = object.objectID }  // permanent once saved
        guard objects.contains(where: { $0 === object || $0.objectID == objectID }) || elsewhere.contains(objectID) else { return }
        compare(in: graph)
    }

    func contextDidReload(in graph: ObjectGraph) {
        compare(in: graph)
    }

    /// `row` with its relationship faults read: an unread relationship kept as the observer's
    /// last values would be read only when compared — through the store as it is by then, if
    /// its generation is gone — and a change made elsewhere would compare equal to itself.
    private static func read(_ row: Row) -> Row {
        var row = row
        for index in row.relationships.indices {
            if case .unread = row.relationships[index] { row.relationships[index] = row.relationships[index].resolved }
        }
        return row
    }

    private func existing(in graph: ObjectGraph) throws -> ManagedObject {
        if let object = graph.registered[objectID], !object.isDeleted {
            object.willAccessValues()
            return object
        }
        guard graph.model.layout(for: objectID.entityName) != nil, graph.storedRow(for: objectID) != nil else {
            throw PersistenceError(.objectNotFound, objectIDs: [objectID], "no object with the ID \(objectID) exists")
        }
        let object = graph.object(for: objectID)
        object.willAccessValues()
        return object
    }

    private func compare(in graph: ObjectGraph) {
        guard let object = try? existing(in: graph) else {
            state.withLock { $0.isDeleted = true }
            wake.yield()
            wake.finish()
            graph.removeChangeObserver(self)
            return
        }
        self.object = object
        let now = object.storage
        var changed: Set<String> = []
        if let values {
            for (index, attribute) in object.layout.attributes.enumerated() where now.attributes[index] != values.attributes[index] {
                changed.insert(attribute.name)
            }
            for (index, relationship) in object.layout.relationships.enumerated() where now.relationships[index] != values.relationships[index] {
                changed.insert(relationship.name)
            }
        }
        values = Self.read(now)
        guard !changed.isEmpty else { return }
        state.withLock { $0.changedKeys.formUnion(changed) }
        wake.yield()
    }
}
