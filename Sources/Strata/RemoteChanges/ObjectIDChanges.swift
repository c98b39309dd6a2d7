/// The IDs of the objects a save elsewhere inserted, updated and deleted: what
/// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-(ObjectIDChanges,_)`` merges (the dictionary
/// Core Data's `mergeChanges(fromRemoteContextSave:into:)` takes, as a value).
public struct ObjectIDChanges: Sendable, Hashable {
    public var insertedObjectIDs: Set<ManagedObjectID>
    public var updatedObjectIDs: Set<ManagedObjectID>
    public var deletedObjectIDs: Set<ManagedObjectID>

    public init(inserted: Set<ManagedObjectID> = [], updated: Set<ManagedObjectID> = [], deleted: Set<ManagedObjectID> = []) {
        insertedObjectIDs = inserted
        updatedObjectIDs = updated
        deletedObjectIDs = deleted
    }

    /// The objects a persistent history transaction changed (Core Data's
    /// `objectIDNotification()` of a transaction).
    public init(_ transaction: PersistentHistoryTransaction) {
        self.init()
        for change in transaction.changes {
            switch change.changeType {
            case .insert: insertedObjectIDs.insert(change.changedObjectID)
            case .update: updatedObjectIDs.insert(change.changedObjectID)
            case .delete: deletedObjectIDs.insert(change.changedObjectID)
            }
        }
    }

    /// The objects a save of this process changed.
    public init(_ save: ContextDidSave) {
        self.init(inserted: save.insertedObjectIDs, updated: save.updatedObjectIDs, deleted: save.deletedObjectIDs)
    }
}
