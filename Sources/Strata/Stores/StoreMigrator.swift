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
    /// - Parameters:
    ///   - url: The store.
    ///   - type: The store's type.
    ///   - metadata: The store's metadata, as read before it opens (its version hashes).
    ///   - model: The model to bring it to: the coordinator's.
    ///   - inferMappingModel: Whether mappings may be inferred where no custom one is given.
    func migrateStore(
        at url: URL, type: StoreType, metadata: [String: MetadataValue], to model: ManagedObjectModel,
        inferMappingModel: Bool
    ) async throws
}
