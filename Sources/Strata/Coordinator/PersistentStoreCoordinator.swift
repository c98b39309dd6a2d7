import Foundation
import Logging

/// Owns a model's stores and the current generation of their objects, and commits the saves of
/// every context that uses it.
///
/// The coordinator is an actor on its own serial queue. Adding and removing stores are `async`
/// calls; a context's save enters the coordinator synchronously through its queue (a save has
/// no suspension point, as in Core Data), checks optimistic-locking versions, lets the stores
/// make the change durable, and publishes the next generation. The coordinator never calls
/// back into a context, so a context waiting on it cannot deadlock.
public actor PersistentStoreCoordinator {
    /// The model every store and context of this coordinator uses.
    public nonisolated let managedObjectModel: ManagedObjectModel

    nonisolated let executor: DispatchQueueExecutor
    /// What readers on any thread may see without entering the queue: the stores and the
    /// latest generation, always replaced together.
    nonisolated let published: ThreadLocked<Published>
    let logger = Logger(label: "strata.coordinator")
    /// Every context's saves on this coordinator.
    nonisolated let saves = Broadcast<ContextDidSave>()
    /// Other processes' and coordinators' commits to stores that announce them.
    nonisolated let remoteChanges = Broadcast<RemoteChange>()
    /// Where remote changes are posted to `NotificationCenter`, in order, off the coordinator's queue.
    nonisolated let notificationQueue = DispatchQueue(label: "strata.coordinator.notifications")
    /// The highest row version a commit has written: an object written back after a deletion
    /// goes on above it (see `apply`).
    var highestVersionWritten: Int64 = 0

    /// The saves of every context on this coordinator, from now on, in the order they commit.
    public nonisolated var didSaveNotifications: AsyncStream<ContextDidSave> {
        saves.subscribe()
    }

    struct Published: Sendable {
        var stores: [PersistentStore] = []
        var generation = Generation.empty
    }

    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
        executor = DispatchQueueExecutor(label: "strata.coordinator")
        published = ThreadLocked(Published())
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// The stores, in the order they were added.
    public nonisolated var persistentStores: [PersistentStore] {
        published.withLock { $0.stores }
    }

    /// The latest generation: what the last commit left.
    nonisolated var currentGeneration: Generation {
        published.withLock { $0.generation }
    }

    /// The latest generation, with what other processes committed to incremental stores since:
    /// what a context pins when it starts to read. A store that changed outside this coordinator
    /// gets a new snapshot, in a new generation, as does one whose snapshot let its state go
    /// while no context held it (``IncrementalStoreSnapshot/isReleased``); when none did, this
    /// is ``currentGeneration``.
    nonisolated func latestGeneration() -> Generation {
        let current = currentGeneration
        guard current.snapshots.values.contains(where: { $0.store.hasOutsideChanges || $0.snapshot.isReleased }) else { return current }
        do {
            return try executor.runSynchronously {
                try self.assumeIsolated { try $0.takeOutsideChanges() }
            }
        } catch {
            logger.error("cannot read a store another process changed: \(error)")
            return current
        }
    }

    /// Starts a generation with new snapshots of the incremental stores that changed outside
    /// or let their snapshot go, and announces the changes for the stores that post remote changes.
    func takeOutsideChanges() throws -> Generation {
        var fresh: [String: StoreSnapshot] = [:]
        var changed: [IncrementalStore] = []
        let released = Set(currentGeneration.snapshots.filter { $0.value.snapshot.isReleased }.keys)
        for store in persistentStores.compactMap({ $0 as? IncrementalStore }) {
            let hasOutsideChanges = store.hasOutsideChanges
            guard hasOutsideChanges || released.contains(store.identifier) else { continue }
            fresh[store.identifier] = try StoreSnapshot(store: store)
            if hasOutsideChanges { changed.append(store) }
        }
        let generation = published.withLock { state in
            if !fresh.isEmpty { state.generation = state.generation.next(replacing: fresh) }
            return state.generation
        }
        for store in changed where store.postsRemoteChanges { announceRemoteChange(of: store) }
        return generation
    }

    /// The store at `url`, if the coordinator has one there.
    public nonisolated func persistentStore(for url: URL) -> PersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// Adds a store and loads its objects.
    ///
    /// - Parameters:
    ///   - type: The kind of store (``StoreType/inMemory``, or a type you registered).
    ///   - configuration: The model configuration the store holds; `nil` for every entity.
    ///   - url: The store's file; `nil` for a store without one.
    ///   - options: Options, keyed by ``PersistentStoreOption``.
    /// - Returns: The store, now part of the coordinator.
    /// - Throws: ``PersistenceError`` for an unknown store type or a store already added;
    ///   the model's ``ManagedObjectModel/validationError`` for a model that does not work;
    ///   whatever the store throws when it cannot load.
    @discardableResult
    public func addPersistentStore(
        type: StoreType, configuration: String? = nil, at url: URL? = nil, options: [String: any Sendable] = [:]
    ) async throws -> PersistentStore {
        if let error = managedObjectModel.validationError { throw error }
        if let url, persistentStore(for: url) != nil {
            throw PersistenceError(.storeAlreadyAdded, "a store at \(url.path) is already part of the coordinator")
        }
        if let url { try await migrateIfNeeded(type: type, configuration: configuration, url: url, options: options) }
        let store = try makeStore(type: type, configuration: configuration, url: url, options: options)
        do {
            try attach(store, type: type, url: url)
        } catch {
            // A store refused or failed after it was made lets go of its file (and its lock), so
            // that it can be opened again, with the right model, say.
            store.didRemove()
            throw error
        }
        postStoresDidChange(added: [store])
        return store
    }

    /// Checks a store just made against the model, loads or snapshots it, and publishes it.
    private func attach(_ store: PersistentStore, type: StoreType, url: URL?) throws {
        guard ManagedObjectID.isValidStoreIdentifier(store.identifier) else {
            throw StoreError(
                .corruptFile, file: url ?? URL(fileURLWithPath: "/"),
                "the store's UUID is not one (\(store.identifier.debugDescription)): object URIs cannot name its objects")
        }
        try checkCompatibility(of: store)
        IDEntities.record(store: store.identifier, model: managedObjectModel)
        if let incremental = store as? IncrementalStore {
            refreshModelMetadata(of: store)
            try incremental.didAdd()
            let snapshot = try StoreSnapshot(store: incremental)
            published.withLock { state in
                state.generation = state.generation.next(replacing: [store.identifier: snapshot])
                state.stores.append(store)
            }
            logger.debug("added store", metadata: ["type": "\(type)", "store": "\(store.identifier)"])
            return
        }
        let tables = try store.loadTables(model: managedObjectModel)
        refreshModelMetadata(of: store)
        let indexes = Generation.buildIndexes(for: tables, model: managedObjectModel)
        published.withLock { state in
            var stores = state.generation.stores
            stores[store.identifier] = tables
            var allIndexes = state.generation.indexes
            allIndexes[store.identifier] = indexes
            state.generation = state.generation.next(stores: stores, indexes: allIndexes)
            state.stores.append(store)
        }
        logger.debug("added store", metadata: ["type": "\(type)", "store": "\(store.identifier)"])
    }

    /// Records the model's version hashes in a new store's metadata, and refuses a store that
    /// another model (version) wrote.
    private func checkCompatibility(of store: PersistentStore) throws {
        let metadata = store.metadata
        guard metadata[PersistentStore.modelVersionHashesKey] != nil else {
            store.metadata = metadata.merging(managedObjectModel.storeMetadata(forConfigurationName: store.configurationName)) { $1 }
            return
        }
        if store.options[PersistentStoreOption.skipsModelVersionCheck] as? Bool == true {
            if !store.isReadOnly, store is AtomicStore { try checkNothingIsDropped(from: store) }
            return
        }
        let differences = managedObjectModel.incompatibleEntities(inConfiguration: store.configurationName, storeMetadata: metadata)
        guard differences.isEmpty else {
            throw PersistenceError(
                .incompatibleStore,
                "the store \(store.url?.path ?? store.identifier) was written by another version of the model; "
                    + "entities that differ: \(differences.joined(separator: ", "))")
        }
    }

    /// For an atomic store opened read-write with ``PersistentStoreOption/skipsModelVersionCheck``:
    /// each save writes the whole file with the coordinator's model, so every entity and stored
    /// property of the model the store records must be in that model, with the same kind and
    /// attribute type; otherwise the open is refused rather than the next save dropping them.
    /// (An incremental store writes only what it is given: SQL stores leave the columns the
    /// model does not know untouched, as Core Data's SQLite store does.)
    private func checkNothingIsDropped(from store: PersistentStore) throws {
        let name = store.url?.path ?? store.identifier
        guard let recorded = try ManagedObjectModel(cachedInStoreMetadata: store.metadata) else {
            throw PersistenceError(
                .incompatibleStore,
                "the store \(name) records no model, so what a save with another model would drop cannot be known; "
                    + "open it read-only, or migrate it")
        }
        var dropped: [String] = []
        for entity in recorded.entities {
            guard let mine = managedObjectModel.entitiesByName[entity.name] else {
                dropped.append(entity.name)
                continue
            }
            for attribute in entity.attributesByName.values where !attribute.isTransient {
                if mine.attributesByName[attribute.name].map({ $0.type != attribute.type || $0.isTransient }) ?? true {
                    dropped.append("\(entity.name).\(attribute.name)")
                }
            }
            for relationship in entity.relationshipsByName.values where !relationship.isTransient {
                if mine.relationshipsByName[relationship.name].map({ $0.isTransient || $0.isToMany != relationship.isToMany }) ?? true {
                    dropped.append("\(entity.name).\(relationship.name)")
                }
            }
        }
        guard dropped.isEmpty else {
            throw PersistenceError(
                .incompatibleStore,
                "the store \(name) holds what this model would drop or change at the next save (\(dropped.sorted().joined(separator: ", "))); "
                    + "open it read-only, or migrate it")
        }
    }

    /// Brings what a loaded store's metadata says of its model up to date; its next save writes
    /// it. A store written before Strata used Core Data's version hashes records its own: once
    /// it is found compatible, it takes Core Data's (and the rest of the model's metadata).
    private func refreshModelMetadata(of store: PersistentStore) {
        if ManagedObjectModel.storeMetadataHasLegacyHashes(store.metadata) {
            store.metadata = store.metadata.merging(managedObjectModel.storeMetadata(forConfigurationName: store.configurationName)) { $1 }
            return
        }
        // The model the store carries follows the model that opens it: a compatible model may
        // still differ in what no hash covers (a default value, an index), and a store written
        // before Strata kept the model gets it.
        let cache = MetadataValue.data(managedObjectModel.storeCacheData)
        if store.metadata[PersistentStore.modelCacheKey] != cache { store.metadata[PersistentStore.modelCacheKey] = cache }
    }

    /// Adds the store a description describes, and calls `completionHandler` with the
    /// description and the error, if any: Core Data's completion-handler form.
    public nonisolated func addPersistentStore(
        with description: PersistentStoreDescription,
        completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void
    ) {
        Task {
            do {
                try await addPersistentStore(
                    type: description.type, configuration: description.configuration, at: description.url,
                    options: description.options)
                completionHandler(description, nil)
            } catch {
                completionHandler(description, error)
            }
        }
    }

    /// Removes a store: its objects leave the coordinator's generation. Contexts still pinned to
    /// an earlier generation keep reading them until they move on.
    ///
    /// - Throws: ``PersistenceError`` with code `.storeNotFound` if the store is not part of
    ///   this coordinator.
    public func removePersistentStore(_ store: PersistentStore) throws {
        try published.withLock { state in
            guard let index = state.stores.firstIndex(where: { $0 === store }) else {
                throw PersistenceError(.storeNotFound, "the store \(store.identifier) is not part of this coordinator")
            }
            state.stores.remove(at: index)
            var stores = state.generation.stores
            stores[store.identifier] = nil
            var indexes = state.generation.indexes
            indexes[store.identifier] = nil
            var next = state.generation.next(stores: stores, indexes: indexes)
            next.snapshots[store.identifier] = nil
            state.generation = next
        }
        store.didRemove()
        postStoresDidChange(removed: [store])
    }

    /// The object ID a URI from ``ManagedObjectID/uriRepresentation()`` names, or `nil` when
    /// the URI is malformed, its store is not part of this coordinator, or its entity is not in
    /// the model. (Whether the object still exists is for a context to tell:
    /// ``ManagedObjectContext/existingObject(with:)``.)
    public nonisolated func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        guard let id = ManagedObjectID(uri: uri),
            let store = persistentStores.first(where: { $0.identifier == id.persistentStoreIdentifier })
        else { return nil }
        if managedObjectModel.entity(named: id.entityName) != nil { return id }
        // An entity renamed by a migration: its objects kept their reference numbers, and the
        // store's metadata records the old name, so URIs taken before still resolve.
        guard case .dictionary(let renames)? = store.metadata[PersistentStore.entityRenamesKey],
            let current = renames[id.entityName]?.stringValue, managedObjectModel.entity(named: current) != nil,
            case .permanent(let storeID, let reference) = id.key
        else { return nil }
        return ManagedObjectID(entityName: current, key: .permanent(store: storeID, reference: reference))
    }
}
