import Foundation

/// Core Data's context notifications through `NotificationCenter`, under Core Data's names and
/// user-info keys: what code written for `NSManagedObjectContext` observes.
///
/// The same news comes typed on ``ManagedObjectContext/didSaveNotifications`` and
/// ``ManagedObjectContext/objectsDidChangeNotifications``; the notifications add the objects
/// themselves, which are the posting context's (not `Sendable`): use them in the observer's
/// block, which runs on the posting context's executor, as Core Data's do, or take their IDs.
extension ManagedObjectContext {
    /// `NSManagedObjectContext.didSaveObjectsNotification` (`NSManagedObjectContextDidSave`):
    /// after a save to the stores, with the objects and their IDs.
    public static let didSaveObjectsNotification = ContextDidSave.notificationName
    /// `NSManagedObjectContext.didChangeObjectsNotification` (`NSManagedObjectContextObjectsDidChange`):
    /// when the context processes its pending changes, or merges another's.
    public static let didChangeObjectsNotification = ObjectsDidChange.notificationName
    /// `NSManagedObjectContext.willSaveObjectsNotification` (`NSManagedObjectContextWillSave`):
    /// at the start of a save with changes, before the objects' `willSave()`; no user info.
    public static let willSaveObjectsNotification = Notification.Name("NSManagedObjectContextWillSaveNotification")

    /// The user-info keys of the context's notifications, as Core Data's
    /// `NSManagedObjectContext.NotificationKey` (`NSInsertedObjectsKey` …): sets of
    /// ``ManagedObject``s, and of ``ManagedObjectID``s under the `…ObjectIDs` keys.
    public enum NotificationKey: String, Sendable {
        case insertedObjects = "inserted"
        case updatedObjects = "updated"
        case deletedObjects = "deleted"
        case refreshedObjects = "refreshed"
        case invalidatedObjects = "invalidated"
        case insertedObjectIDs = "inserted_objectIDs"
        case updatedObjectIDs = "updated_objectIDs"
        case deletedObjectIDs = "deleted_objectIDs"
        case refreshedObjectIDs = "refreshed_objectIDs"
        case invalidatedObjectIDs = "invalidated_objectIDs"
        case queryGeneration = "queryGeneration"
    }

    /// Applies a save another context announced through `NotificationCenter`: Core Data's
    /// `mergeChanges(fromContextDidSave:)` given the notification itself. Its object IDs are
    /// read (the `…ObjectIDs` keys), not its objects, which are the other context's; a
    /// notification from this context changes nothing. Without a query generation (a
    /// notification made by hand), the context moves to the latest generation first.
    ///
    /// `Notification` is not `Sendable` on Linux, so this one is `nonisolated` and `async`: it
    /// reads what it needs before it goes to the context. In an observer's block, which cannot
    /// hand the notification on, take ``ObjectIDChanges/init(contextDidSave:)`` there and
    /// merge that (``mergeChanges(fromRemoteContextSave:)``).
    public nonisolated func mergeChanges(fromContextDidSave notification: Notification) async {
        if let poster = notification.object as? ManagedObjectContext, poster === self { return }
        let changes = ObjectIDChanges(contextDidSave: notification)
        let generation = notification.userInfo?[NotificationKey.queryGeneration.rawValue] as? QueryGenerationToken
        await mergeAnnounced(changes, madeIn: generation)
    }

    private func mergeAnnounced(_ changes: ObjectIDChanges, madeIn generation: QueryGenerationToken?) {
        guard let generation else {
            mergeChanges(fromRemoteContextSave: changes)
            return
        }
        if graph.generation.number < generation.number {
            graph.generation = graph.coordinator.currentGeneration
        }
        merge(changes)
    }

}

extension ObjectIDChanges {
    /// The object IDs a context's save notification names (the `…ObjectIDs` keys of
    /// ``ManagedObjectContext/NotificationKey``): what an observer's block takes from it to
    /// merge elsewhere.
    public init(contextDidSave notification: Notification) {
        typealias Key = ManagedObjectContext.NotificationKey
        let info = notification.userInfo ?? [:]
        func ids(_ key: Key) -> Set<ManagedObjectID> { info[key.rawValue] as? Set<ManagedObjectID> ?? [] }
        self.init(inserted: ids(.insertedObjectIDs), updated: ids(.updatedObjectIDs), deleted: ids(.deletedObjectIDs))
    }
}

/// Core Data's keys of a change dictionary (`NSInsertedObjectsKey`, `NSDeletedObjectsKey` …),
/// as Core Data code writes them for
/// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-([AnyHashable:Any],_)``:
/// `[DeletedObjectsKey: ids]`. The same strings as ``ManagedObjectContext/NotificationKey``.
public let InsertedObjectsKey = ManagedObjectContext.NotificationKey.insertedObjects.rawValue
/// See ``InsertedObjectsKey``.
public let UpdatedObjectsKey = ManagedObjectContext.NotificationKey.updatedObjects.rawValue
/// See ``InsertedObjectsKey``.
public let DeletedObjectsKey = ManagedObjectContext.NotificationKey.deletedObjects.rawValue
/// See ``InsertedObjectsKey``.
public let RefreshedObjectsKey = ManagedObjectContext.NotificationKey.refreshedObjects.rawValue
/// See ``InsertedObjectsKey``.
public let InvalidatedObjectsKey = ManagedObjectContext.NotificationKey.invalidatedObjects.rawValue

/// The objects a notification names, by what happened to them.
struct ObjectsByChange {
    var inserted: Set<ManagedObject> = []
    var updated: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []
    var refreshed: Set<ManagedObject> = []

    /// ``ObjectsDidChange`` as `context` posts it, with the objects.
    func notification(of change: ObjectsDidChange, postedBy context: ManagedObjectContext) -> Notification {
        typealias Key = ManagedObjectContext.NotificationKey
        var info: [AnyHashable: Any] = [
            Key.insertedObjectIDs.rawValue: change.insertedObjectIDs, Key.updatedObjectIDs.rawValue: change.updatedObjectIDs,
            Key.deletedObjectIDs.rawValue: change.deletedObjectIDs, Key.refreshedObjectIDs.rawValue: change.refreshedObjectIDs,
        ]
        add(to: &info)
        return Notification(name: ObjectsDidChange.notificationName, object: context, userInfo: info)
    }

    /// Puts the sets that hold objects in `info`: as in Core Data's notifications, a key for
    /// a change that touched no object is absent, not an empty set.
    func add(to info: inout [AnyHashable: Any]) {
        typealias Key = ManagedObjectContext.NotificationKey
        for (key, objects) in [(Key.insertedObjects, inserted), (.updatedObjects, updated), (.deletedObjects, deleted), (.refreshedObjects, refreshed)]
        where !objects.isEmpty {
            info[key.rawValue] = objects
        }
    }
}
