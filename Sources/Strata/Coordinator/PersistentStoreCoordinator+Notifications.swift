import Foundation

/// Core Data's `NSPersistentStoreCoordinatorStoresDidChange`, through `NotificationCenter`.
extension PersistentStoreCoordinator {
    /// Posted after a store is added to or removed from the coordinator (migrating a store is
    /// one removal and one addition), with the coordinator as object and the stores under
    /// ``addedPersistentStoresKey`` and ``removedPersistentStoresKey``, as Core Data's
    /// `storesDidChangeNotification`. (Core Data's `storesWillChange` concerns iCloud stores,
    /// which Strata does not have.)
    public static let storesDidChangeNotification = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Core Data's `NSAddedPersistentStoresKey`: `[PersistentStore]`.
    public static let addedPersistentStoresKey = "added"
    /// Core Data's `NSRemovedPersistentStoresKey`: `[PersistentStore]`.
    public static let removedPersistentStoresKey = "removed"

    func postStoresDidChange(added: [PersistentStore] = [], removed: [PersistentStore] = []) {
        var info: [AnyHashable: Any] = [:]
        if !added.isEmpty { info[Self.addedPersistentStoresKey] = added }
        if !removed.isEmpty { info[Self.removedPersistentStoresKey] = removed }
        NotificationCenter.default.post(name: Self.storesDidChangeNotification, object: self, userInfo: info)
    }
}
