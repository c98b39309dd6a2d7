/// The name of a kind of persistent store, as given to
/// ``PersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``.
///
/// Register your own store class for a type of your own with
/// ``PersistentStoreCoordinator/registerStoreClass(_:forStoreType:)-(AtomicStore.Type,_)`` or
/// ``PersistentStoreCoordinator/registerStoreClass(_:forStoreType:)-(IncrementalStore.Type,_)``.
public struct StoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A store that keeps its objects in memory only, for the life of its coordinator.
    public static let inMemory = StoreType(rawValue: "InMemory")

    /// Core Data's SQLite store, in Core Data's own file format: ``SQLiteStore``. Its raw value
    /// is the `NSStoreType` Core Data writes into the store's metadata.
    public static let sqlite = StoreType(rawValue: "SQLite")

    public var description: String { rawValue }
}
