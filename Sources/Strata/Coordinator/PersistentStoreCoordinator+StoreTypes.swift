import Foundation

extension PersistentStoreCoordinator {
    /// Registers an atomic store class under a store type, so that
    /// ``addPersistentStore(type:configuration:at:options:)`` makes stores of that class.
    /// ``StoreType/binary`` and ``StoreType/xml`` are registered from the start.
    public static func registerStoreClass(_ storeClass: AtomicStore.Type, forStoreType type: StoreType) {
        storeClasses.withLock { $0[type] = storeClass }
    }

    /// Registers an incremental store class under a store type, so that
    /// ``addPersistentStore(type:configuration:at:options:)`` makes stores of that class.
    /// ``StoreType/sqlite`` is registered from the start.
    public static func registerStoreClass(_ storeClass: IncrementalStore.Type, forStoreType type: StoreType) {
        incrementalStoreClasses.withLock { $0[type] = storeClass }
    }

    /// The atomic store class registered for a store type, if any.
    public static func storeClass(forStoreType type: StoreType) -> AtomicStore.Type? {
        storeClasses.withLock { $0[type] }
    }

    /// The incremental store class registered for a store type, if any.
    public static func incrementalStoreClass(forStoreType type: StoreType) -> IncrementalStore.Type? {
        incrementalStoreClasses.withLock { $0[type] }
    }

    /// Whether a store class (of either kind) is registered for `type`: a store with a file.
    static func hasFileStoreClass(for type: StoreType) -> Bool {
        storeClass(forStoreType: type) != nil || incrementalStoreClass(forStoreType: type) != nil
    }

    /// Reads the metadata of the store file at `url` without loading its objects.
    ///
    /// - Throws: ``PersistenceError`` for an unknown store type; ``StoreError`` for a file that
    ///   cannot be read.
    public static func metadataForPersistentStore(type: StoreType, at url: URL) throws -> [String: MetadataValue] {
        if let incremental = incrementalStoreClass(forStoreType: type) { return try incremental.metadataForPersistentStore(at: url) }
        return try registeredClass(for: type).metadataForPersistentStore(at: url)
    }

    /// Writes the metadata of the store file at `url` without loading its objects. The store's
    /// UUID and type are kept whatever `metadata` says.
    public static func setMetadata(
        _ metadata: [String: MetadataValue], forPersistentStoreOfType type: StoreType, at url: URL
    ) throws {
        if let incremental = incrementalStoreClass(forStoreType: type) {
            return try incremental.setMetadata(metadata, forPersistentStoreAt: url)
        }
        try registeredClass(for: type).setMetadata(metadata, forPersistentStoreAt: url)
    }

    // Behind pthread locks, not `Mutex`: ThreadSanitizer does not follow `Mutex`'s futex on
    // Linux, and reported two test suites registering the same store type at once as a race.
    private static let storeClasses = ThreadLocked<[StoreType: AtomicStore.Type]>([.binary: BinaryStore.self, .xml: XMLStore.self])
    private static let incrementalStoreClasses = ThreadLocked<[StoreType: IncrementalStore.Type]>([.sqlite: SQLiteStore.self])

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
        if let incremental = Self.incrementalStoreClass(forStoreType: type) {
            let store = try IncrementalStore.$creatingType.withValue(type) {
                try incremental.init(coordinator: self, configurationName: configuration, url: url, options: options)
            }
            try store.loadMetadata()
            return store
        }
        let storeClass = try Self.registeredClass(for: type)
        guard let url else {
            throw PersistenceError(.missingStoreURL, "a \(type) store needs a file URL")
        }
        return try AtomicStore.$creatingType.withValue(type) {
            try storeClass.init(coordinator: self, configurationName: configuration, url: url, options: options)
        }
    }
}
