/// What a batch request returns (Core Data's `NSBatchInsertResult`, `NSBatchUpdateResult` and
/// `NSBatchDeleteResult`), in the form its ``BatchResultType`` asked for.
public enum BatchResult: Sendable, Hashable {
    /// Whether the request ran (it throws when it did not).
    case status(Bool)
    /// How many objects it inserted, updated or deleted (a delete: with those its cascades took).
    case count(Int)
    /// The IDs of those objects: merge them into contexts with
    /// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-(ObjectIDChanges,_)``.
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

    /// The result as Core Data's `result` gives it, for the caller to cast: a `Bool` for
    /// `.statusOnly`, an `Int` for `.count`, `[ManagedObjectID]` for `.objectIDs`
    /// (`result.result as? [ManagedObjectID]`).
    public var result: Any? {
        switch self {
        case .status(let ran): ran
        case .count(let count): count
        case .objectIDs(let ids): ids
        }
    }
}

/// Core Data's result classes, one type here: `try context.execute(request) as? BatchDeleteResult`
/// reads as Core Data code does (the cast always succeeds).
public typealias BatchDeleteResult = BatchResult
/// See ``BatchDeleteResult``.
public typealias BatchUpdateResult = BatchResult
/// See ``BatchDeleteResult``.
public typealias BatchInsertResult = BatchResult

/// The form of a batch request's result.
public enum BatchResultType: Sendable, Hashable {
    case statusOnly
    case count
    case objectIDs
}

/// Core Data's names for the result types of each batch request.
extension BatchResultType {
    /// `NSBatchDeleteRequestResultType.resultTypeStatusOnly`.
    public static var resultTypeStatusOnly: Self { .statusOnly }
    /// `NSBatchDeleteRequestResultType.resultTypeObjectIDs`.
    public static var resultTypeObjectIDs: Self { .objectIDs }
    /// `NSBatchDeleteRequestResultType.resultTypeCount`.
    public static var resultTypeCount: Self { .count }
    /// `NSBatchUpdateRequestResultType.statusOnlyResultType`.
    public static var statusOnlyResultType: Self { .statusOnly }
    /// `NSBatchUpdateRequestResultType.updatedObjectIDsResultType`.
    public static var updatedObjectIDsResultType: Self { .objectIDs }
    /// `NSBatchUpdateRequestResultType.updatedObjectsCountResultType`.
    public static var updatedObjectsCountResultType: Self { .count }
}
