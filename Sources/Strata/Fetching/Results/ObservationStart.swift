/// How an observation starts, for fetches and objects alike: a wake-up stream that keeps only
/// the newest wake-up (a lagging observer takes the latest state, not a backlog); the
/// observation made in the context and held by its graph; and its end when the stream ends
/// (the loop left, the task cancelled), which asks the context — held weakly, so that an
/// observation never keeps it alive — to let the observation go.
enum ObservationStart {
    /// Makes the observation with `make` in `context` (which may throw: the request or object
    /// is refused) and returns what wakes the observer.
    static func start(
        in context: ManagedObjectContext, _ make: @escaping @Sendable (ObjectGraph, AsyncStream<Void>.Continuation) throws -> AnyObject
    ) async throws -> AsyncStream<Void>.Iterator {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = try await context.perform { context in
            context.graph.keep(try make(context.graph, wake))
        }
        wake.onTermination = { [weak context] _ in
            guard let context else { return }
            Task { await context.stopObservation(key) }
        }
        return wakes.makeAsyncIterator()
    }
}
