/// What one save did to one object, as persistent history recorded it (Core Data's
/// `NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable, Hashable {
    /// Inserted, updated or deleted.
    public enum ChangeType: Int, Sendable, Hashable, Codable {
        case insert = 0
        case update = 1
        case delete = 2
    }

    /// The change's number in its store, unique and never reused.
    public let changeID: Int64
    /// The object changed. For a deleted object, the ID it had (it resolves no longer).
    public let changedObjectID: ManagedObjectID
    public let changeType: ChangeType
    /// For an update, the names of the properties the save changed (attributes and
    /// relationships, a to-many whose membership changed included); `nil` for an insert or a
    /// delete.
    public let updatedProperties: Set<String>?
    /// For a delete, the values the object had of the attributes the model keeps after
    /// deletion (``AttributeDescription/preservesValueInHistoryOnDeletion``, Xcode's "Preserve
    /// After Deletion"), by name; absent values are left out. `nil` for an insert or an update,
    /// and for a delete of an entity that keeps none.
    public let tombstone: [String: AttributeValue]?
    /// The number of the transaction the change belongs to.
    public let transactionNumber: Int64

    public init(
        changeID: Int64, changedObjectID: ManagedObjectID, changeType: ChangeType, updatedProperties: Set<String>?,
        tombstone: [String: AttributeValue]?, transactionNumber: Int64
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
        self.transactionNumber = transactionNumber
    }
}
