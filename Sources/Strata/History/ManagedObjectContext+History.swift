extension ManagedObjectContext {
    /// Reads or deletes persistent history through the context's coordinator, synchronously
    /// (Core Data's `execute(_:)` with an `NSPersistentHistoryChangeRequest`). History is the
    /// store's as it is now, not as the context's generation sees it.
    ///
    /// - Throws: what ``PersistentStoreCoordinator/execute(_:)-(PersistentHistoryChangeRequest)`` throws.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try graph.coordinator.executeSynchronously(request)
    }
}
