import Foundation

extension PersistentStoreCoordinator {
    /// Deletes or empties the store at `url`, as its type requires: Core Data's
    /// `destroyPersistentStore(at:type:options:)`, what an app calls to start again from
    /// nothing.
    ///
    /// - A SQLite store is emptied in place, as Core Data's is (it truncates rather than
    ///   deletes): its tables are dropped in one transaction, so that a connection another
    ///   coordinator or process still holds reads an empty database, never a file pulled from
    ///   under it; its externally stored values are deleted. The file opens as a new store.
    /// - A binary or XML store's file is deleted.
    /// - A PostgreSQL store's tables are dropped, and its schema when nothing else is left in it.
    /// - An in-memory store has nothing to destroy; a user's store class does what its
    ///   `destroyPersistentStore(at:options:)` does.
    ///
    /// Where there is no store at `url`, nothing happens. A store at `url` that this coordinator
    /// has added is removed from it first (``removePersistentStore(_:)``); other coordinators
    /// should remove theirs before, as in Core Data. A file that is not a store of `type` is
    /// refused, not deleted.
    ///
    /// - Throws: ``PersistenceError`` `.unknownStoreType` for a type no class is registered
    ///   for; ``StoreError`` (`.notAStore`) for a file of another kind; what the store reports.
    public func destroyPersistentStore(at url: URL, type: StoreType, options: [String: any Sendable] = [:]) throws {
        if type == .inMemory { return }
        for store in persistentStores where store.url?.standardizedFileURL == url.standardizedFileURL && store.type == type {
            try removePersistentStore(store)
        }
        if let incremental = Self.incrementalStoreClass(forStoreType: type) {
            return try incremental.destroyPersistentStore(at: url, options: options)
        }
        guard let atomic = Self.storeClass(forStoreType: type) else {
            throw PersistenceError(.unknownStoreType, "no store class is registered for the store type '\(type)'")
        }
        try atomic.destroyPersistentStore(at: url, options: options)
    }
}
