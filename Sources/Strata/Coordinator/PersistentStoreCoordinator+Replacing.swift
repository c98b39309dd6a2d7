import Foundation

extension PersistentStoreCoordinator {
    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`, both of
    /// `type`: Core Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`,
    /// what an app calls to restore a backup or to start from a store it ships.
    ///
    /// The copy is the store as it is — the same objects under the same IDs, its metadata, its
    /// externally stored data — and it takes the destination's place whole or not at all:
    ///
    /// - A SQLite store is copied into the destination file with SQLite's online backup, in one
    ///   transaction, so that a connection another coordinator or process still holds reads the
    ///   old store or the new one, never a file pulled from under it; its externally stored
    ///   values are copied beside it first and the destination's old ones deleted after.
    /// - A binary or XML store's file is copied beside the destination, then renamed over it.
    /// - A PostgreSQL store's tables are copied into the destination's schema in one transaction
    ///   (both in the same database; across servers, use
    ///   ``migratePersistentStore(_:to:options:type:)``).
    ///
    /// A store at `destinationURL` that this coordinator has added is removed from it first, as
    /// ``destroyPersistentStore(at:type:options:)`` does; add it again to use the new content.
    /// Where there is no store at `destinationURL`, the copy makes one. Replacing a store with
    /// itself does nothing.
    ///
    /// - Throws: ``PersistenceError`` `.unknownStoreType` for a type no class is registered for,
    ///   `.unsupportedRequest` for a store class that cannot replace (a user's incremental store
    ///   unless it says how); ``StoreError`` `.notAStore` when the source is not a store of
    ///   `type`, or the destination holds a file of another kind (it is left as it is); what the
    ///   store reports. On an error the destination is as it was.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [String: any Sendable] = [:], withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [String: any Sendable] = [:], type: StoreType
    ) throws {
        if type == .inMemory || destinationURL.standardizedFileURL == sourceURL.standardizedFileURL { return }
        for store in persistentStores where store.url?.standardizedFileURL == destinationURL.standardizedFileURL && store.type == type {
            try removePersistentStore(store)
        }
        if let incremental = Self.incrementalStoreClass(forStoreType: type) {
            return try incremental.replacePersistentStore(
                at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL, sourceOptions: sourceOptions)
        }
        guard let atomic = Self.storeClass(forStoreType: type) else {
            throw PersistenceError(.unknownStoreType, "no store class is registered for the store type '\(type)'")
        }
        try atomic.replacePersistentStore(
            at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL, sourceOptions: sourceOptions)
    }
}
