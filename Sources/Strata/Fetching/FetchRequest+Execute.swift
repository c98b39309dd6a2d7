extension ManagedObjectContext {
    /// The context whose `perform` or `performAndWait` block is running on this thread: what
    /// Core Data's `NSFetchRequest.execute()` fetches in.
    @TaskLocal static var performing: ManagedObjectContext?

    /// Whether the calling code runs on the context's own executor.
    nonisolated var isOnOwnExecutor: Bool {
        queueExecutor?.isCurrent ?? DispatchQueueExecutor.isOnMainQueue
    }
}

extension FetchRequest where Result: ManagedObject {
    /// Fetches in the context whose `perform` block runs it, as Core Data's `execute()`:
    /// `try Book.fetchRequest().execute()` there is `try context.fetch(Book.fetchRequest())`.
    ///
    /// - Throws: ``PersistenceError`` `.unsupportedRequest` outside a context's `perform` or
    ///   `performAndWait` block (Core Data's must be called inside one too), or in a task
    ///   started inside one; what ``ManagedObjectContext/fetch(_:)->[Result]`` throws.
    public func execute() throws -> [Result] {
        guard let context = ManagedObjectContext.performing, context.isOnOwnExecutor else {
            throw PersistenceError(
                .unsupportedRequest, "execute() fetches in the context whose perform block runs it: call it inside one, or use context.fetch(_:)")
        }
        // `assumeIsolated` only regains the isolation the perform block has (checked just
        // above): the closure runs here and now, so the results written to `fetched` are this
        // thread's alone.
        nonisolated(unsafe) var fetched: [Result] = []
        try context.assumeIsolated { context in fetched = try context.fetch(self) }
        return fetched
    }
}
