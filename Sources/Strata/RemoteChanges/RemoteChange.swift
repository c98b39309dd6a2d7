import Foundation

/// Another process, or another coordinator in this one, committed to a store (Core Data's
/// `NSPersistentStoreRemoteChange` notification).
///
/// Posted by a coordinator whose store was added with
/// ``PersistentStoreOption/remoteChangeNotifications``, on
/// ``PersistentStoreCoordinator/remoteChangeNotifications`` and through
/// `NotificationCenter.default` under ``notificationName``. Several commits may arrive as one
/// notification: with persistent history tracking, read the history after the token you last
/// processed to see each of them, in order.
public struct RemoteChange: Sendable, Hashable {
    /// The identifier (UUID) of the store that changed.
    public let storeIdentifier: String
    /// Its file.
    public let storeURL: URL?
    /// The token of the store's last transaction when the change was noticed, for a store that
    /// records persistent history; `nil` otherwise.
    public let historyToken: PersistentHistoryToken?

    public init(storeIdentifier: String, storeURL: URL?, historyToken: PersistentHistoryToken?) {
        self.storeIdentifier = storeIdentifier
        self.storeURL = storeURL
        self.historyToken = historyToken
    }

    /// `NSPersistentStoreRemoteChangeNotification`, as Core Data names it; the notification's
    /// object is the coordinator.
    public static let notificationName = Notification.Name("NSPersistentStoreRemoteChangeNotification")
    /// The user-info keys, as Core Data names them: the store's UUID (a `String`), its URL, and
    /// the history token (a ``PersistentHistoryToken``, when there is one).
    public static let storeUUIDKey = "storeUUID"
    public static let storeURLKey = "storeURL"
    public static let historyTokenKey = "historyToken"

    /// The change as a `Notification` under Core Data's name and keys.
    public func notification(object: PersistentStoreCoordinator) -> Notification {
        var userInfo: [AnyHashable: Any] = [Self.storeUUIDKey: storeIdentifier]
        if let storeURL { userInfo[Self.storeURLKey] = storeURL }
        if let historyToken { userInfo[Self.historyTokenKey] = historyToken }
        return Notification(name: Self.notificationName, object: object, userInfo: userInfo)
    }
}
