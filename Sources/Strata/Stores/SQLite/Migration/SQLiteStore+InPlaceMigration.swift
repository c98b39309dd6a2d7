import Foundation

/// The SQLite store migrates in place, as the PostgreSQL store does, through the hooks
/// ``PackageIncrementalStore`` declares for both: migration on open and ``MigrationPlan`` call
/// them for any such store type.
extension SQLiteStore: PackageIncrementalStore {
    /// The metadata of the store file at `url`; `nil` when there is no file yet, an empty one, or
    /// a database with no tables.
    package static func existingMetadata(at url: URL) throws -> [String: MetadataValue]? {
        if StoreFileMigration.hasNoStoreFile(at: url) { return nil }
        // A database with no tables (a store emptied by destroyPersistentStore, or a file made
        // empty by other means) is a new store, as the store itself opens it (`loadMetadata`).
        try checkHeader(of: url)
        do {
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: defaultTimeout)
            return try readMetadata(from: connection, file: url)
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
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
