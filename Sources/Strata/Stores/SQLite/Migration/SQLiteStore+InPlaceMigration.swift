import Foundation

/// The SQLite store migrates in place, as the PostgreSQL store does, through the hooks
/// ``PackageIncrementalStore`` declares for both: migration on open and ``MigrationPlan`` call
/// them for any such store type.
extension SQLiteStore: PackageIncrementalStore {
    /// The metadata of the store file at `url`; `nil` when there is no file yet, or an empty one.
    package static func existingMetadata(at url: URL) throws -> [String: MetadataValue]? {
        if StoreFileMigration.hasNoStoreFile(at: url) { return nil }
        return try metadataForPersistentStore(at: url)
    }

    /// Migrates the file in SQL, every step in one transaction where the mappings translate, by
    /// copying rows where they do not (``SQLiteStoreMigration``); with `backup`, first writes a
    /// copy of the file as it was there (`VACUUM INTO`).
    package static func migrateStore(
        at url: URL, through steps: [MigrationStep], fillsMissingValues: Bool, backup: URL?, isCancelled: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> [MigrationReport] {
        var migration = SQLiteStoreMigration(steps: steps)
        migration.fillsMissingValues = fillsMissingValues
        migration.isCancelled = isCancelled
        migration.progress = progress
        return try migration.migrateStore(at: url, backup: backup)
    }
}
