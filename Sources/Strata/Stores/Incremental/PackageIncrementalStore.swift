import Foundation

/// What an ``IncrementalStore`` in another module of this package adds to the public contract,
/// beyond the abilities it shares with the SQLite store (``RowReadingStore``, ``RowSavingStore``,
/// ``HistoryKeepingStore``, ``LifecycleAwareStore``, ``BatchExecutingStore``): migrating in place. A subclass outside the `Strata`
/// module cannot override the coordinator's internal hooks (their types are not public), so it
/// conforms to this instead. The PostgreSQL store (module `StrataPostgres`) does.
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
    /// - Throws: ``MigrationError`` (the store is not at the first step's source version, its
    ///   data breaks the destination's rules, the migration was cancelled), or the store's errors.
    static func migrateStore(
        at url: URL, through steps: [MigrationStep], fillsMissingValues: Bool, isCancelled: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> [MigrationReport]
}
