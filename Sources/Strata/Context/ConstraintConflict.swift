/// Objects whose values break a uniqueness constraint: what a save under
/// ``MergePolicy/error`` reports, as Core Data's `NSConstraintConflict`.
public struct ConstraintConflict: Sendable, Hashable, CustomStringConvertible {
    /// The constrained properties.
    public let constraint: [String]
    /// The objects being saved that have the same values.
    public let conflictingObjectIDs: [ManagedObjectID]
    /// The object already in the store with those values, if the clash is with one.
    public let storeObjectID: ManagedObjectID?

    public init(constraint: [String], conflictingObjectIDs: [ManagedObjectID], storeObjectID: ManagedObjectID?) {
        self.constraint = constraint
        self.conflictingObjectIDs = conflictingObjectIDs
        self.storeObjectID = storeObjectID
    }

    public var description: String {
        "(\(constraint.joined(separator: ", "))) is not unique: \(conflictingObjectIDs.map(\.description).joined(separator: ", "))"
            + (storeObjectID.map { " and the stored \($0)" } ?? "")
    }
}
