import Foundation

/// A store that keeps Core Data's tables in a database of its own and migrates them in place:
/// the SQLite store and the PostgreSQL store (module `StrataPostgres`). It gathers the abilities
/// both SQL stores declare (``RowReadingStore``, ``RowSavingStore``, ``HistoryKeepingStore``,
/// ``LifecycleAwareStore``; ``BatchExecutingStore`` too, declared apart) and adds the static
/// hooks migration calls for any such store type. Neither store overrides an internal hook of
/// ``IncrementalStore``: what they need beyond the public contract is here, the same for both.
///
/// Each instance hook is called where the internal hook of ``IncrementalStore`` it stands for is:
/// on the coordinator's queue, or (the reads) on the reading context's thread. The static ones
/// let migration on open and ``MigrationPlan`` migrate a store of the type in place, as they
/// migrate binary and SQLite store files.
package protocol PackageIncrementalStore: RowSavingStore, HistoryKeepingStore, LifecycleAwareStore {
    /// The metadata of the store at `url`, or `nil` when there is no store there yet.
    static func existingMetadata(at url: URL) throws -> [String: MetadataValue]?

    /// Migrates the store at `url` through `steps`, in place, whole or not at all. Called on a
    /// thread of its own (it blocks for the whole migration).
    ///
    /// - Parameter backup: Where to keep a copy of the store as it was before the first step; a
    ///   store that is not a file refuses one (``PersistenceError/Code/incompatibleStore``).
    ///
    /// - Throws: ``MigrationError`` (the store is not at the first step's source version, its
    ///   data breaks the destination's rules, the migration was cancelled), or the store's errors.
    static func migrateStore(
        at url: URL, through steps: [MigrationStep], fillsMissingValues: Bool, backup: URL?, isCancelled: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> [MigrationReport]
}
