import Foundation

/// What changed in a context since it last said so: the objects it inserted, updated, deleted
/// or refreshed, by ID. Posted when the context processes its pending changes (``ManagedObjectContext/processPendingChanges()``:
/// at the end of each `perform` block and before a save or fetch, as Core Data does), or merges
/// another context's save, as Core Data's `NSManagedObjectContextObjectsDidChangeNotification`.
public struct ObjectsDidChange: Sendable {
    public let insertedObjectIDs: Set<ManagedObjectID>
    public let updatedObjectIDs: Set<ManagedObjectID>
    public let deletedObjectIDs: Set<ManagedObjectID>
    /// Objects reloaded from the store (by a merge or a refresh).
    public let refreshedObjectIDs: Set<ManagedObjectID>

    /// `NSManagedObjectContextObjectsDidChangeNotification`, as Core Data names it.
    public static let notificationName = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")

    var isEmpty: Bool {
        insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty && refreshedObjectIDs.isEmpty
    }
}
