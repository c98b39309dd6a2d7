/// A fetch that runs later on its context's executor and hands its result to a block: Core
/// Data's `NSAsynchronousFetchRequest`.
///
/// ```swift
/// let request = AsynchronousFetchRequest(fetchRequest: Book.fetchRequest()) { result in
///     guard let books = result.finalResult else { return }
///     …
/// }
/// let running = try context.execute(request)   // returns at once
/// running.progress?.cancel()                   // or running.cancel()
/// ```
///
/// ``ManagedObjectContext/execute(_:)-(AsynchronousFetchRequest<Result>)`` returns an
/// ``AsynchronousFetchResult`` at once; the fetch runs as a later job of the context's executor
/// (the caller's block ends first), and the completion block runs there, as Core Data calls it
/// on the context's queue. The block is `@Sendable`: for a main-queue context it runs on the
/// main actor, where `MainActor.assumeIsolated { … }` reaches main-actor state.
///
/// From `async` code, `try await context.perform { try $0.fetch(request) }` is the same fetch
/// without a block.
public struct AsynchronousFetchRequest<Result>: Sendable {
    /// The fetch to run.
    public let fetchRequest: FetchRequest<Result>
    /// The block the result is given to, on the context's executor.
    public let completionBlock: (@Sendable (AsynchronousFetchResult<Result>) -> Void)?
    /// How many results the caller expects: the result's ``AsynchronousFetchResult/progress``
    /// counts up to it until the fetch knows the real number (Core Data uses it to schedule
    /// the fetch; 0, unknown, by default).
    public var estimatedResultCount = 0

    /// A request to run `fetchRequest` and give its result to `completionBlock`.
    public init(fetchRequest: FetchRequest<Result>, completionBlock: (@Sendable (AsynchronousFetchResult<Result>) -> Void)? = nil) {
        self.fetchRequest = fetchRequest
        self.completionBlock = completionBlock
    }
}
