import Foundation

/// What an ``AsynchronousFetchRequest`` gives: at once its ``progress``, and on the context's
/// executor its ``finalResult`` or ``operationError`` — Core Data's `NSAsynchronousFetchResult`.
///
/// Cancelling (``cancel()`` or `progress.cancel()`) before the fetch starts skips it: the
/// completion block is then given no result and a `CancellationError`. A fetch that has run
/// is not undone.
///
/// The result holds the context's objects, so it stays on the context's executor, as they do.
public final class AsynchronousFetchResult<Result> {
    /// The request this is the result of.
    public let fetchRequest: AsynchronousFetchRequest<Result>
    /// The context the fetch runs in.
    public unowned(safe) let managedObjectContext: ManagedObjectContext
    /// The fetch's progress: its total the request's estimate until the fetch counts its
    /// results; a child of the progress current when the request was executed (as in Core
    /// Data), if there was one. Cancelling it cancels the fetch.
    public let progress: Progress?
    /// The results, once the fetch has run; `nil` before, and when it failed or was cancelled.
    public internal(set) var finalResult: [Result]?
    /// Why the fetch gave no results: what it threw, or `CancellationError` when cancelled.
    public internal(set) var operationError: (any Error)?

    init(request: AsynchronousFetchRequest<Result>, context: ManagedObjectContext) {
        fetchRequest = request
        managedObjectContext = context
        progress = Progress(totalUnitCount: Int64(max(request.estimatedResultCount, 0)))
    }

    /// Cancels the fetch if it has not started: Core Data's `cancel()`.
    public func cancel() {
        progress?.cancel()
    }
}
