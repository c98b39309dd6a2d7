import Foundation

/// Brings a store file written by an older version of a model up to the coordinator's model
/// before the store opens. ``StagedMigrator`` is one.
///
/// Give one in a store's options under ``PersistentStoreOption/migrator``; with
/// ``PersistentStoreOption/migratePersistentStoresAutomatically`` on, the coordinator calls it
/// when the store's version hashes differ from its model's.
public protocol StoreMigrator: Sendable {
    /// Migrates the store at `url` (whose metadata is `metadata`) to `model`, in place.
    ///
    /// - Parameter inferMappingModel: Whether mappings may be inferred where no custom one is given.
    func migrateStore(
        at url: URL, type: StoreType, metadata: [String: MetadataValue], to model: ManagedObjectModel,
        inferMappingModel: Bool
    ) async throws
}
