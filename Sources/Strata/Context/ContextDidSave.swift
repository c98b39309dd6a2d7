import Foundation

/// What one save changed: the IDs of the objects it inserted, updated and deleted, and the
/// generation it made. `Sendable`: contexts, tasks and threads pass it around, and
/// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(ContextDidSave)`` applies it to another context.
///
/// Saves announce themselves on ``PersistentStoreCoordinator/didSaveNotifications`` and
/// ``ManagedObjectContext/didSaveNotifications``, and through `NotificationCenter.default`
/// under Core Data's name (``ContextDidSave/notificationName``). A child context's save
/// announces itself on the context's own, as Core Data's does (the coordinator's stream carries
/// saves that reached the stores).
public struct ContextDidSave: Sendable {
    public let insertedObjectIDs: Set<ManagedObjectID>
    public let updatedObjectIDs: Set<ManagedObjectID>
    public let deletedObjectIDs: Set<ManagedObjectID>
    /// The generation the save made; for a child context's save, which reaches its parent and
    /// no store, the generation the child reads.
    public let queryGeneration: QueryGenerationToken
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let transactionAuthor: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public let contextName: String?
    /// The context that saved.
    public let context: ManagedObjectContext

    /// `NSManagedObjectContextDidSaveNotification`, as Core Data names it.
    public static let notificationName = Notification.Name("NSManagedObjectContextDidSaveNotification")
    /// The user-info keys of the notification, as Core Data names them: sets of object IDs.
    public static let insertedObjectIDsKey = "inserted_objectIDs"
    public static let updatedObjectIDsKey = "updated_objectIDs"
    public static let deletedObjectIDsKey = "deleted_objectIDs"
    /// The key of the generation the save made (a ``QueryGenerationToken``): Core Data's
    /// `NSManagedObjectContext.NotificationKey.queryGeneration` (its string is [unchecked]).
    public static let queryGenerationKey = "queryGeneration"

    /// The save as a `Notification` under Core Data's name and keys.
    public var notification: Notification {
        Notification(
            name: Self.notificationName, object: context,
            userInfo: [
                Self.insertedObjectIDsKey: insertedObjectIDs, Self.updatedObjectIDsKey: updatedObjectIDs,
                Self.deletedObjectIDsKey: deletedObjectIDs, Self.queryGenerationKey: queryGeneration,
            ])
    }
}
