import Foundation

extension ManagedObjectContext {
    /// Applies another context's save to this one: the context moves to the save's generation
    /// (or a later one); objects it updated are reloaded, keeping this context's unsaved changes
    /// on top; objects it deleted leave this context. Core Data's `mergeChanges(fromContextDidSave:)`.
    public func mergeChanges(fromContextDidSave save: ContextDidSave) {
        guard save.context !== self else { return }
        if graph.generation.number < save.queryGeneration.number {
            graph.generation = persistentStoreCoordinator.currentGeneration
        }
        var refreshed: Set<ManagedObjectID> = []
        for id in save.updatedObjectIDs {
            guard let object = graph.registered[id] else { continue }
            if object.isFault { continue }
            graph.refresh(object, mergeChanges: true)
            refreshed.insert(id)
        }
        var deleted: Set<ManagedObjectID> = []
        for id in save.deletedObjectIDs {
            guard let object = graph.registered[id] else { continue }
            // The objects of this context on the other side of its links let it go, as the
            // other save's delete rules did in the store (a new object here too).
            for (index, targets) in object.storage.relationships.enumerated() {
                guard let inverse = object.layout.inverseSlots[index] else { continue }
                for target in targets.objectIDs {
                    if let other = graph.registered[target] { graph.remove(id, from: other, at: inverse) }
                }
            }
            graph.unregister(object)
            object.isDeleted = false
            object.isUpdated = false
            deleted.insert(id)
        }
        let change = ObjectsDidChange(
            insertedObjectIDs: save.insertedObjectIDs, updatedObjectIDs: [], deletedObjectIDs: deleted, refreshedObjectIDs: refreshed)
        changes.send(change)
    }

    /// Whether the context merges every other context's saves on its coordinator as they happen
    /// (Core Data's `automaticallyMergesChangesFromParent`, the parent here being the coordinator).
    /// Merges run on the context's executor, between its other work.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergingTask != nil }
        set {
            guard newValue != (mergingTask != nil) else { return }
            mergingTask?.cancel()
            mergingTask = nil
            guard newValue else { return }
            let saves = persistentStoreCoordinator.didSaveNotifications
            mergingTask = Task { [weak self] in
                for await save in saves {
                    guard let self else { return }
                    await self.mergeChanges(fromContextDidSave: save)
                }
            }
        }
    }

    /// The generation the context reads: pinned at its first read, moved on by saves, merges,
    /// refreshes, resets and ``setQueryGenerationFrom(_:)``.
    public var queryGenerationToken: QueryGenerationToken {
        QueryGenerationToken(number: graph.generation.number)
    }

    /// Pins the context to a generation: ``QueryGenerationToken/current`` moves it to the latest
    /// now (its registered objects keep their values until refreshed, as Core Data's do);
    /// the token of the generation it reads keeps it there.
    ///
    /// - Throws: ``PersistenceError`` with code `.unavailableGeneration` for another generation:
    ///   Strata keeps only the generations that contexts are reading.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken) throws {
        if token == .current {
            graph.moveToLatest()
        } else if token.number != graph.generation.number {
            throw PersistenceError(.unavailableGeneration, "the \(token) is not the one this context reads, nor the current one")
        }
    }
}
