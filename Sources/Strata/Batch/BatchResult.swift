/// What a batch request returns (Core Data's `NSBatchInsertResult`, `NSBatchUpdateResult` and
/// `NSBatchDeleteResult`), in the form its ``BatchResultType`` asked for.
public enum BatchResult: Sendable, Hashable {
    /// Whether the request ran (it throws when it did not).
    case status(Bool)
    /// How many objects it inserted, updated or deleted (a delete: with those its cascades took).
    case count(Int)
    /// The IDs of those objects: merge them into contexts with
    /// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
    case objectIDs([ManagedObjectID])

    /// The count, for a `.count` result; the number of IDs, for `.objectIDs`.
    public var count: Int? {
        switch self {
        case .status: nil
        case .count(let count): count
        case .objectIDs(let ids): ids.count
        }
    }

    /// The IDs, for an `.objectIDs` result.
    public var objectIDs: [ManagedObjectID]? {
        if case .objectIDs(let ids) = self { return ids }
        return nil
    }
}

/// The form of a batch request's result.
public enum BatchResultType: Sendable, Hashable {
    case statusOnly
    case count
    case objectIDs
}
