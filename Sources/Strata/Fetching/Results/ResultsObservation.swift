/// An observed fetch inside its context: a ``ResultsTracker`` that, after each change to the
/// result, leaves the new snapshot (and the objects updated since the observer last took one)
/// in `state` and wakes the observer. Held by the context's graph until the observer stops;
/// when the context goes, it finishes the observer's sequence.
final class ResultsObservation<Result: ManagedObject>: ContextChangeObserver {
    /// What the observer takes at each wake-up.
    struct State: Sendable {
        var snapshot: FetchedResultsSnapshot?
        var updated: Set<ManagedObjectID> = []
    }

    private let tracker: ResultsTracker<Result>
    private let state: ThreadLocked<State>
    private let wake: AsyncStream<Void>.Continuation

    init(tracker: ResultsTracker<Result>, state: ThreadLocked<State>, wake: AsyncStream<Void>.Continuation) {
        self.tracker = tracker
        self.state = state
        self.wake = wake
    }

    deinit {
        wake.finish()
    }

    /// Fetches the result, leaves it for the observer and starts following changes.
    func start(in graph: ObjectGraph) throws {
        try tracker.fetch(in: graph)
        publish(updated: [])
        graph.addChangeObserver(self)
    }

    func contextDidChange(objects: [ManagedObject], elsewhere: Set<ManagedObjectID>, in graph: ObjectGraph) {
        guard let outcome = tracker.follow(objects: objects, elsewhere: elsewhere, in: graph) else { return }
        publish(updated: Set(outcome.objects.filter { $0.type == .update }.map(\.object.objectID)))
    }

    func contextDidReload(in graph: ObjectGraph) {
        guard tracker.refetch(in: graph) != nil else { return }
        publish(updated: [])
    }

    private func publish(updated: Set<ManagedObjectID>) {
        let snapshot = tracker.snapshot
        state.withLock { state in
            state.snapshot = snapshot
            state.updated.formUnion(updated)
        }
        wake.yield()
    }
}
