/// What the coordinator asks of an ``IncrementalStore`` through
/// ``IncrementalStore/execute(_:with:)``: Core Data's `NSPersistentStoreRequest`.
public enum IncrementalStoreRequest: Sendable {
    /// The objects of `entity` (not its subentities) that may match `predicate`. The store may
    /// return more than match (the context evaluates the predicate again) but never fewer.
    case fetch(entity: EntityDescription, predicate: FetchPredicate?)
    /// Commit one save's changes.
    case save(SaveChangesRequest)
}

/// What ``IncrementalStore/execute(_:with:)`` answers.
public enum IncrementalStoreResult: Sendable {
    /// A fetch's objects by ID: the coordinator reads each with
    /// ``IncrementalStore/newValuesForObject(with:with:)``.
    case objectIDs([ManagedObjectID])
    /// A fetch's objects with their values, read at once.
    case nodes([IncrementalStoreNode])
    /// A save's objects with the versions they now have.
    case saved(versions: [ManagedObjectID: Int64])
}
