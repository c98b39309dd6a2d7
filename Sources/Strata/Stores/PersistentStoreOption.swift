/// Keys of the options dictionary given when a store is added.
public enum PersistentStoreOption {
    /// `Bool`: open the store read-only; saves into it are refused.
    public static let readOnly = "ReadOnly"
    /// `Bool`: migrate a store written with an older model version when it is added.
    public static let migratePersistentStoresAutomatically = "MigratePersistentStoresAutomatically"
    /// `Bool`: infer the mapping model for that migration.
    public static let inferMappingModelAutomatically = "InferMappingModelAutomatically"
}
