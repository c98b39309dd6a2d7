/// An object's changes: the sequence ``ManagedObjectContext/changes(ofObjectWith:)`` returns.
/// Its first element, with no changed keys, says the observation started (the object is read
/// then); then one after each change of the context that alters the object's values (the
/// keys that changed since the last element taken: a lagging consumer gets them together),
/// and a last one when it is deleted. The sequence ends then, when the iteration ends, or when
/// the context goes away.
public struct ObjectChanges: AsyncSequence, Sendable {
    public typealias Element = ObjectChange
    public typealias Failure = any Error

    let context: ManagedObjectContext
    let objectID: ManagedObjectID

    public func makeAsyncIterator() -> Iterator {
        Iterator(context: context, objectID: objectID)
    }

    public struct Iterator: AsyncIteratorProtocol {
        private var starting: ManagedObjectContext?
        private let objectID: ManagedObjectID
        private let state = ThreadLocked(ObjectObservation.State())
        private var wakes: AsyncStream<Void>.Iterator?
        private var ended = false

        init(context: ManagedObjectContext, objectID: ManagedObjectID) {
            starting = context
            self.objectID = objectID
        }

        public mutating func next() async throws -> ObjectChange? {
            if let context = starting {
                starting = nil
                let (objectID, state) = (objectID, state)
                wakes = try await ObservationStart.start(in: context) { graph, wake in
                    let observation = ObjectObservation(objectID: objectID, state: state, wake: wake)
                    try observation.start(in: graph)
                    return observation
                }
                return ObjectChange(changedKeys: [], isDeleted: false)
            }
            guard !ended, var wakes else { return nil }
            defer { self.wakes = wakes }
            guard await wakes.next() != nil else { return nil }
            let change = state.withLock { state in
                defer { state.changedKeys = [] }
                return ObjectChange(changedKeys: state.changedKeys, isDeleted: state.isDeleted)
            }
            ended = change.isDeleted
            return change
        }
    }
}
