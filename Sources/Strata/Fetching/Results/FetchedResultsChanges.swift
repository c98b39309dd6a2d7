/// A fetch's result as it changes: the sequence ``ManagedObjectContext/changes(of:sectionNameKeyPath:)``
/// returns. Its first element is the result when iteration starts (every object inserted);
/// then one after each change of the context that alters the result. A consumer that lags
/// gets the latest result, with the difference from the last one it took, not a backlog.
/// Ending the iteration (leaving the loop, cancelling the task) ends the observation and lets
/// go of what it held; the sequence ends when the context goes away.
public struct FetchedResultsChanges<Result: ManagedObject>: AsyncSequence, Sendable {
    public typealias Element = FetchedResultsUpdate
    public typealias Failure = any Error

    let context: ManagedObjectContext
    let request: FetchRequest<Result>
    let sectionNameKeyPath: String?

    public func makeAsyncIterator() -> Iterator {
        Iterator(context: context, request: request, sectionNameKeyPath: sectionNameKeyPath)
    }

    public struct Iterator: AsyncIteratorProtocol {
        /// Until the observation starts; then only a weak reference is kept.
        private var starting: ManagedObjectContext?
        private let request: FetchRequest<Result>
        private let sectionNameKeyPath: String?
        private let state = ThreadLocked(ResultsObservation<Result>.State())
        private var wakes: AsyncStream<Void>.Iterator?
        private var previous: FetchedResultsSnapshot?

        init(context: ManagedObjectContext, request: FetchRequest<Result>, sectionNameKeyPath: String?) {
            starting = context
            self.request = request
            self.sectionNameKeyPath = sectionNameKeyPath
        }

        public mutating func next() async throws -> FetchedResultsUpdate? {
            if let context = starting {
                starting = nil
                let (request, sectionNameKeyPath, state) = (request, sectionNameKeyPath, state)
                wakes = try await ObservationStart.start(in: context) { graph, wake in
                    let tracker = ResultsTracker(fetchRequest: request, sectionNameKeyPath: sectionNameKeyPath)
                    let observation = ResultsObservation(tracker: tracker, state: state, wake: wake)
                    try observation.start(in: graph)
                    return observation
                }
            }
            guard var wakes else { return nil }
            defer { self.wakes = wakes }
            guard await wakes.next() != nil else { return nil }
            let (snapshot, updated) = state.withLock { state in
                defer { state.updated = [] }
                return (state.snapshot, state.updated)
            }
            guard let snapshot else { return nil }
            defer { previous = snapshot }
            return FetchedResultsUpdate(from: previous, to: snapshot, updated: updated)
        }

    }
}
