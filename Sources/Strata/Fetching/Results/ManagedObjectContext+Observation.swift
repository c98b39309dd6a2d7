extension ManagedObjectContext {
    /// The result of `request` as it changes: a sequence of ``FetchedResultsUpdate``s, the first
    /// being the result when iteration starts, then one after each change that alters it —
    /// what a ``FetchedResultsController`` follows, as `Sendable` values for any task (GRDB's
    /// `ValueObservation`, SwiftData's `@Query`, for a fetch).
    ///
    /// ```swift
    /// for try await update in context.changes(of: FetchRequest<Book>(sortDescriptors: [.ascending("title")])) {
    ///     print(update.snapshot.itemIdentifiers.count, update.insertedObjectIDs)
    /// }
    /// ```
    ///
    /// It follows what the context sees: its own changes, and other contexts', processes' and
    /// servers' saves once the context merges them — set
    /// ``automaticallyMergesChangesFromParent`` to follow them as they happen. The request is
    /// checked as a controller's (sort descriptors, the first by `sectionNameKeyPath`); the
    /// first `next()` throws what it breaks. Objects inserted in the context and not saved yet
    /// carry temporary IDs until the save, after which they are told as deleted and inserted
    /// under their permanent IDs; observe a context that does not insert (one that merges
    /// others' saves) for stable IDs.
    public nonisolated func changes<Result: ManagedObject>(
        of request: FetchRequest<Result>, sectionNameKeyPath: String? = nil
    ) -> FetchedResultsChanges<Result> {
        FetchedResultsChanges(context: self, request: request, sectionNameKeyPath: sectionNameKeyPath)
    }

    /// The changes of one object, as the context sees them (its own, and the saves it merges):
    /// the keys whose values changed, and its deletion — what Core Data's key-value observing
    /// of a managed object gives, as a sequence. The first element, with no changed keys, says
    /// the observation started (see ``ObjectChanges``).
    ///
    /// ```swift
    /// for try await change in context.changes(ofObjectWith: book.objectID) {
    ///     if change.isDeleted { break }
    ///     print("changed:", change.changedKeys)
    /// }
    /// ```
    ///
    /// The first `next()` throws ``PersistenceError`` `.objectNotFound` when there is no such object.
    public nonisolated func changes(ofObjectWith objectID: ManagedObjectID) -> ObjectChanges {
        ObjectChanges(context: self, objectID: objectID)
    }

    /// Ends an observation: the graph lets it go.
    func stopObservation(_ key: Int) {
        graph.observations[key] = nil
    }
}

extension ObjectGraph {
    /// Holds an observation until ``ManagedObjectContext/stopObservation(_:)``; returns its key.
    func keep(_ observation: AnyObject) -> Int {
        nextObservationKey += 1
        observations[nextObservationKey] = observation
        return nextObservationKey
    }
}
