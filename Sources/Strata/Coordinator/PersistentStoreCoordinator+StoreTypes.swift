import Foundation
import Synchronization

extension PersistentStoreCoordinator {
    /// Registers an atomic store class under a store type, so that
    /// ``addPersistentStore(type:configuration:at:options:)`` makes stores of that class.
    /// ``StoreType/binary`` is registered from the start.
    public static func registerStoreClass(_ storeClass: AtomicStore.Type, forStoreType type: StoreType) {
        storeClasses.withLock { $0[type] = storeClass }
    }

    /// The class registered for a store type, if any.
    public static func storeClass(forStoreType type: StoreType) -> AtomicStore.Type? {
        storeClasses.withLock { $0[type] }
    }

    /// Reads the metadata of the store file at `url` without loading its objects.
    ///
    /// - Throws: ``PersistenceError`` for an unknown store type; ``StoreError`` for a file that
    ///   cannot be read.
    public static func metadataForPersistentStore(type: StoreType, at url: URL) throws -> [String: MetadataValue] {
        try registeredClass(for: type).metadataForPersistentStore(at: url)
    }

    /// Writes the metadata of the store file at `url` without loading its objects. The store's
    /// UUID and type are kept whatever `metadata` says.
    public static func setMetadata(
        _ metadata: [String: MetadataValue], forPersistentStoreOfType type: StoreType, at url: URL
    ) throws {
        try registeredClass(for: type).setMetadata(metadata, forPersistentStoreAt: url)
    }

    private static let storeClasses = Mutex<[StoreType: AtomicStore.Type]>([.binary: BinaryStore.self])

    private static func registeredClass(for type: StoreType) throws -> AtomicStore.Type {
        guard let storeClass = storeClass(forStoreType: type) else {
            throw PersistenceError(.unknownStoreType, "no store class is registered for the store type '\(type)'")
        }
        return storeClass
    }

    /// Makes the store object for a store type.
    func makeStore(
        type: StoreType, configuration: String?, url: URL?, options: [String: any Sendable]
    ) throws -> PersistentStore {
        if type == .inMemory {
            return InMemoryStore(configurationName: configuration, options: options)
        }
        let storeClass = try Self.registeredClass(for: type)
        guard let url else {
            throw PersistenceError(.storeNotFound, "a \(type) store needs a file URL")
        }
        return try AtomicStore.$creatingType.withValue(type) {
            try storeClass.init(coordinator: self, configurationName: configuration, url: url, options: options)
        }
    }
}
