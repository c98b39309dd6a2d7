/// One object that another save changed (or deleted) since the context read it: what a save
/// under ``MergePolicy/error`` reports, as Core Data's `NSMergeConflict`.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    public let objectID: ManagedObjectID
    /// The version the context read.
    public let contextVersion: Int64
    /// The version in the store now; `nil` when the other save deleted the object.
    public let storeVersion: Int64?
    /// The context's attribute values (`nil` values included).
    public let contextValues: [String: AttributeValue?]
    /// The store's attribute values now; empty when the object was deleted.
    public let storeValues: [String: AttributeValue?]

    public var description: String {
        "\(objectID): read at version \(contextVersion), the store has \(storeVersion.map { "version \($0)" } ?? "deleted it")"
    }
}
