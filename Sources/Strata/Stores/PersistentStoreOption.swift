/// Keys of the options dictionary given when a store is added.
public enum PersistentStoreOption {
    /// `Bool`: open the store read-only; saves into it are refused.
    public static let readOnly = "ReadOnly"
    /// How long, in seconds (a `Double`), a SQLite store waits for another connection's lock
    /// before a save or read fails with ``StoreError/Code/storeInUse`` (Core Data's
    /// `NSPersistentStoreTimeoutOption`). Ten seconds unless given.
    public static let timeout = "Timeout"
    /// `Bool`: migrate a store written with an older model version when it is added.
    public static let migratePersistentStoresAutomatically = "MigratePersistentStoresAutomatically"
    /// `Bool`: infer the mapping model for that migration.
    public static let inferMappingModelAutomatically = "InferMappingModelAutomatically"
    /// `[URL]`: where migration on open looks for Core Data mapping models (`.cdm` files,
    /// `.xcmappingmodel` folders, or folders holding them) before the program's resources, which
    /// it always searches, as Core Data searches the app's bundles. A mapping model that maps a
    /// step's two versions is used for that step instead of inferring one.
    public static let mappingModelLocations = "MappingModelLocations"
    /// `any StoreMigrator`: what migrates the store when its version hashes differ from the
    /// model's and ``migratePersistentStoresAutomatically`` is on.
    public static let migrator = "Migrator"
    /// `Bool`: open a store even when its model version hashes differ from the coordinator's
    /// model, reading properties by name (Core Data's `NSIgnorePersistentStoreVersioningOption`),
    /// and without migrating it. Read-only, for tools that read a store with the model its file
    /// records (``BinaryStoreFile/recordedModel()``). Read-write, as in Core Data, with one
    /// safeguard: an atomic store (binary, XML, yours) is rewritten whole with the coordinator's
    /// model at each save, so it opens only when that model has every entity and stored property
    /// the store records, of the same kind and type (otherwise ``PersistenceError`` with code
    /// `.incompatibleStore` names what would be lost). SQL stores write only the columns the model
    /// knows. The store's recorded version hashes stay as they were: open it with this option
    /// each time, or migrate it.
    public static let skipsModelVersionCheck = "SkipsModelVersionCheck"
    /// `Bool`: record persistent history, every save's transaction and changes (Core Data's
    /// `NSPersistentHistoryTrackingKey`); read it with ``PersistentHistoryChangeRequest``.
    ///
    /// As in Core Data, a store that has recorded history must go on recording it: added
    /// without this option, such a store opens read-only (and says so in the log and in the
    /// error a save into it meets), so that no save goes missing from its history.
    public static let persistentHistoryTracking = "PersistentHistoryTracking"

    /// `Bool`: announce other processes' (and other coordinators') commits to the store as
    /// ``RemoteChange``s (Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    /// A SQLite store watches its files for writes (inotify on Linux, and a check a second
    /// whatever happens); the coordinator then takes the change in and posts it. The binary
    /// store is locked by the one coordinator that writes it, so nothing else commits to it.
    public static let remoteChangeNotifications = "RemoteChangeNotifications"

    /// `[String: any Sendable]`: SQLite pragmas the SQLite store runs on every connection it
    /// opens, by name, with a number, a `Bool` or a keyword as value (Core Data's
    /// `NSSQLitePragmasOption`): `["synchronous": "NORMAL", "cache_size": 4000]`. A
    /// `journal_mode` other than `WAL` and any `locking_mode` are refused
    /// (``PersistenceError/Code/invalidOption``): the store's snapshots need WAL and several
    /// connections.
    public static let sqlitePragmas = "SQLitePragmas"
    /// `Bool`: rebuild the SQLite store's file (`VACUUM`) when it is added (Core Data's
    /// `NSSQLiteManualVacuumOption`).
    public static let sqliteManualVacuum = "SQLiteManualVacuum"
    /// `Bool`: update the SQLite store's statistics for the query planner (`ANALYZE`) when it is
    /// added (Core Data's `NSSQLiteAnalyzeOption`).
    public static let sqliteAnalyze = "SQLiteAnalyze"
}
