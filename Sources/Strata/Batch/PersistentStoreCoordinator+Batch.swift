import Logging

extension PersistentStoreCoordinator {
    /// A batch request done by the store in its own query language, when the coordinator's one
    /// store declares it can (``BatchExecutingStore``) and translates it (`write` returns `nil`
    /// when it cannot): the IDs of the objects it changed, after a new generation reads them;
    /// `nil` when the store could not (the caller goes the general way).
    nonisolated func batchInStore(_ write: @Sendable (any BatchExecutingStore) throws -> [ManagedObjectID]?) throws -> [ManagedObjectID]? {
        try executor.runSynchronously {
            try self.assumeIsolated { coordinator -> [ManagedObjectID]? in
                let stores = coordinator.persistentStores
                guard stores.count == 1, let store = stores.first as? any BatchExecutingStore, !store.isReadOnly else { return nil }
                // Another process's commits are taken in (and announced) with it, as with any save.
                let changedOutside = store.postsRemoteChanges && store.hasOutsideChanges
                guard let ids = try write(store) else { return nil }
                do {
                    let snapshot = try StoreSnapshot(store: store)
                    coordinator.published.withLock { state in
                        state.generation = state.generation.next(replacing: [store.identifier: snapshot])
                    }
                } catch {
                    coordinator.logger.error("a batch request committed, but its store cannot be read from: \(error)")
                }
                if changedOutside { coordinator.announceRemoteChange(of: store) }
                return ids
            }
        }
    }
}
