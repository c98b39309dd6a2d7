import Foundation
import Logging

extension ManagedObjectContext {
    /// Applies another context's save to this one, as Core Data's `mergeChanges(fromContextDidSave:)`:
    /// the context moves to the save's generation (or a later one); objects it updated are
    /// reloaded, keeping this context's unsaved changes on top; objects it inserted are faulted
    /// in; objects it deleted are deleted here, and leave when pending changes are processed.
    public func mergeChanges(fromContextDidSave save: ContextDidSave) {
        guard save.context !== self else { return }
        if graph.generation.number < save.queryGeneration.number {
            graph.generation = graph.coordinator.currentGeneration
        }
        merge(ObjectIDChanges(save))
    }

    /// Applies a save made elsewhere (another process, another coordinator: a persistent
    /// history transaction, or IDs your own channel carried) to this context, as
    /// ``mergeChanges(fromContextDidSave:)-(ContextDidSave)`` applies one of this coordinator's: the context moves
    /// to the latest generation, which reads the store as it is now.
    public func mergeChanges(fromRemoteContextSave changes: ObjectIDChanges) {
        graph.moveToLatest()
        merge(changes)
    }

    /// Applies what a persistent history transaction changed (Core Data's
    /// `mergeChanges(fromContextDidSave: transaction.objectIDNotification())`).
    public func mergeChanges(from transaction: PersistentHistoryTransaction) {
        mergeChanges(fromRemoteContextSave: ObjectIDChanges(transaction))
    }

    /// Applies a save made elsewhere to each of `contexts`, on each one's executor, in turn
    /// (Core Data's `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`).
    public static func mergeChanges(fromRemoteContextSave changes: ObjectIDChanges, into contexts: [ManagedObjectContext]) async {
        for context in contexts {
            // In a block of the context's own, as Core Data does it: the block's end processes them.
            await context.mergeChanges(fromRemoteContextSave: changes)
            await context.processPendingChanges()
        }
    }

    /// Applies changes made elsewhere to each of `contexts`, as Core Data code passes them after
    /// a batch request: `[DeletedObjectsKey: ids]` (or `InsertedObjectsKey`,
    /// `UpdatedObjectsKey`, their `…ObjectIDs` forms), each holding object IDs or their URIs
    /// (`uriRepresentation()`), as an array or a set. Core Data's synchronous
    /// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`: it merges in each
    /// context with ``performAndWait(_:)`` (in place when called from that context's own block).
    ///
    /// Values of other kinds, and URIs of no store of the contexts' coordinator, are skipped.
    public nonisolated static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        guard let coordinator = contexts.lazy.compactMap(\.persistentStoreCoordinator).first else { return }
        func ids(_ keys: NotificationKey...) -> Set<ManagedObjectID> {
            var found: Set<ManagedObjectID> = []
            for key in keys {
                let values: [Any] = (changes[key.rawValue] as? [Any]) ?? (changes[key.rawValue] as? Set<AnyHashable>).map { Array($0) } ?? []
                for value in values {
                    if let id = value as? ManagedObjectID { found.insert(id) }
                    if let uri = value as? URL, let id = coordinator.managedObjectID(forURIRepresentation: uri) { found.insert(id) }
                }
            }
            return found
        }
        let merged = ObjectIDChanges(
            inserted: ids(.insertedObjects, .insertedObjectIDs), updated: ids(.updatedObjects, .updatedObjectIDs),
            deleted: ids(.deletedObjects, .deletedObjectIDs))
        for context in contexts {
            // As the async form: merged in a block of the context's own, whose end processes them.
            context.performAndWait { context in
                context.mergeChanges(fromRemoteContextSave: merged)
                context.processPendingChanges()
            }
        }
    }

    /// Applies a save, as Core Data's `mergeChanges(fromContextDidSave:)` documents it: refreshes
    /// the updated objects this context holds (keeping its unsaved changes on top), faults in
    /// the inserted ones (they are registered here, and load when first read), and deletes the
    /// deleted ones — they stay registered, marked deleted, until the context processes its
    /// pending changes (at the end of the `perform` block, say), which takes them out of this
    /// context's other objects and lets them go. One ``ObjectsDidChange`` says all of it.
    ///
    /// Strata holds registered objects strongly: a long-lived context that merges every save
    /// keeps a fault for each object others inserted, until ``reset()``.
    func merge(_ changes: ObjectIDChanges) {
        // Like a read, a merge holds the generation only while it runs, unless the context is pinned.
        defer { graph.endRead() }
        var refreshed: Set<ManagedObjectID> = []
        var touched: [ManagedObject] = []
        var elsewhere: Set<ManagedObjectID> = []
        for id in changes.updatedObjectIDs {
            guard let object = graph.registered[id] else {
                elsewhere.insert(id)
                continue
            }
            touched.append(object)
            if object.isFault {
                object.forgetCachedRow()  // it fires with the merged save's values
                continue
            }
            graph.refresh(object, mergeChanges: true)
            refreshed.insert(id)
        }
        var inserted: Set<ManagedObjectID> = []
        for id in changes.insertedObjectIDs where graph.model.layout(for: id.entityName) != nil {
            // Registered already when an earlier merge read a later generation and followed a
            // relationship to it: not new to the context, but new to its fetched results.
            if let known = graph.registered[id] {
                touched.append(known)
                continue
            }
            touched.append(graph.object(for: id))
            inserted.insert(id)
        }
        var deleted: Set<ManagedObjectID> = []
        for id in changes.deletedObjectIDs {
            guard let object = graph.registered[id], !object.isDeleted else { continue }
            graph.deleteMerged(object)
            touched.append(object)
            deleted.insert(id)
        }
        graph.tellObservers(objects: touched, elsewhere: elsewhere)
        let change = ObjectsDidChange(insertedObjectIDs: inserted, updatedObjectIDs: [], deletedObjectIDs: deleted, refreshedObjectIDs: refreshed)
        self.changes.send(change)
        let objects = ObjectsByChange(
            inserted: Set(inserted.compactMap { graph.registered[$0] }), deleted: Set(touched.filter { deleted.contains($0.objectID) }),
            refreshed: Set(refreshed.compactMap { graph.registered[$0] }))
        NotificationCenter.default.post(objects.notification(of: change, postedBy: self))
    }

    /// Whether the context merges every other context's saves on its coordinator as they happen
    /// (Core Data's `automaticallyMergesChangesFromParent`, the parent here being the coordinator),
    /// and other processes' commits to stores that announce them
    /// (``PersistentStoreOption/remoteChangeNotifications``): with persistent history, each
    /// transaction since the last one merged, in order; without, by refreshing every object the
    /// context holds. Merges run on the context's executor, between its other work.
    ///
    /// It may be set from anywhere, as Core Data code sets it right after making the context
    /// (`container.viewContext.automaticallyMergesChangesFromParent = true`, Xcode's template).
    ///
    /// - Precondition: the context has its coordinator (or parent) when it is turned on.
    public nonisolated var automaticallyMergesChangesFromParent: Bool {
        get { settings[\.mergingTask] != nil }
        set {
            // The merging task is made outside the settings' lock (it asks the coordinator for
            // its history token), and kept only if nothing turned merging on meanwhile.
            let task = newValue ? makeMergingTask() : nil
            let replaced = settings.values.withLock { settings -> Task<Void, Never>? in
                guard newValue != (settings.mergingTask != nil) else { return task }
                defer { settings.mergingTask = task }
                return settings.mergingTask
            }
            replaced?.cancel()
        }
    }

    /// A task that merges every other save on the context's coordinator, and remote changes, as
    /// they come.
    private nonisolated func makeMergingTask() -> Task<Void, Never> {
        let coordinator = attachment.withLock { $0.isAttached ? $0.graph.coordinator : nil }
        guard let coordinator else {
            preconditionFailure("give the context its persistentStoreCoordinator or parent before it merges changes")
        }
        let saves = coordinator.didSaveNotifications
        let remote = coordinator.remoteChangeNotifications
        // Where history merging starts: what the stores hold now is what the context reads.
        let start = try? coordinator.currentPersistentHistoryToken()
        return Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [weak self] in
                    for await save in saves {
                        guard let self else { return }
                        // As Core Data merges in a block of its own, whose end processes them.
                        await self.mergeChanges(fromContextDidSave: save)
                        await self.processPendingChanges()
                    }
                }
                group.addTask { [weak self] in
                    var merged = start?.transactionNumbers ?? [:]
                    for await change in remote {
                        guard let self else { return }
                        await self.mergeRemoteChange(change, after: &merged)
                        await self.processPendingChanges()
                    }
                }
            }
        }
    }

    /// Merges one remote change: the history transactions of its store after the last one
    /// merged (`merged`, by store, moved on), or, for a store without history, a refresh of
    /// every object the context holds.
    private func mergeRemoteChange(_ change: RemoteChange, after merged: inout [String: Int64]) {
        guard change.historyToken != nil else {
            graph.moveToLatest()
            refreshAllObjects()
            return
        }
        let store = change.storeIdentifier
        let after = merged[store].map { PersistentHistoryToken(storeIdentifier: store, transactionNumber: $0) }
        var request = PersistentHistoryChangeRequest.fetchHistory(after: after)
        request.affectedStores = [store]
        do {
            for transaction in try execute(request).transactions {
                mergeChanges(from: transaction)
                merged[store] = transaction.transactionNumber
            }
        } catch {
            // History deleted past what was merged: the objects held are refreshed instead.
            graph.logger.warning("cannot read the history of a remote change; refreshing every object", metadata: ["error": "\(error)"])
            refreshAllObjects()
            merged[store] = change.historyToken?.transactionNumbers[store]
        }
    }

    /// The generation the context is pinned to, as Core Data's `queryGenerationToken`: `nil`
    /// (the default) when every fetch, count and fault reads the latest state of the store.
    public var queryGenerationToken: QueryGenerationToken? {
        graph.pinsQueryGeneration ? QueryGenerationToken(number: graph.generation.number) : nil
    }

    /// Pins the context to a generation, or unpins it, as Core Data's `setQueryGenerationFrom(_:)`:
    /// ``QueryGenerationToken/current`` pins it to the latest now, and its reads stay there
    /// until it saves, refreshes, resets or is moved again (its registered objects keep their
    /// values until refreshed, as Core Data's do); the token it is pinned to keeps it there;
    /// `nil` unpins it, so that each read takes the latest again.
    ///
    /// - Throws: ``PersistenceError`` with code `.unavailableGeneration` for another generation:
    ///   Strata keeps only the generations that contexts are reading.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        guard let token else {
            graph.pinsQueryGeneration = false
            graph.unpinGeneration()
            return
        }
        if token == .current {
            graph.moveToLatest()
        } else if !graph.pinsQueryGeneration || token.number != graph.generation.number {
            throw PersistenceError(.unavailableGeneration, "the \(token) is not the one this context is pinned to, nor the current one")
        }
        graph.pinsQueryGeneration = true
    }
}
