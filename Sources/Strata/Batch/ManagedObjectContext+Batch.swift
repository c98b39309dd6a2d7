extension ManagedObjectContext {
    /// Inserts objects without making managed objects, in one save through the context's
    /// coordinator (Core Data's `execute(_:)` with an `NSBatchInsertRequest`). The context does not
    /// hear of them but by merging; its ``transactionAuthor`` and ``name`` go into persistent
    /// history.
    ///
    /// - Throws: ``ValidationError`` for a value of the wrong type, an unknown key or a required
    ///   attribute without a value; ``PersistenceError`` from the save. Nothing is inserted then.
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        try batch.insert(request)
    }

    /// Updates attributes of the objects that match, without managed objects, in one save (Core
    /// Data's `NSBatchUpdateRequest`). The context's own objects keep their values until it merges
    /// the change (ask for ``BatchResultType/objectIDs``).
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        try batch.update(request)
    }

    /// Deletes the objects that match, or those given, with their delete rules, without managed
    /// objects, in one save (Core Data's `NSBatchDeleteRequest`). Merge the deleted IDs into the
    /// contexts that hold them.
    ///
    /// - Throws: ``ValidationError`` when a deny rule or a required to-one forbids a deletion;
    ///   nothing is deleted then.
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        try batch.delete(request)
    }

    private var batch: BatchExecution {
        BatchExecution(coordinator: graph.coordinator, author: transactionAuthor, contextName: name)
    }
}
