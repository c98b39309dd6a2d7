import Foundation

/// How to add a store: its type, location, configuration and options. A
/// ``PersistentContainer`` adds one store per description.
public struct PersistentStoreDescription: Sendable, CustomStringConvertible {
    public var type: StoreType
    /// The store's file; `nil` for a store without one.
    public var url: URL?
    /// The model configuration the store holds; `nil` for every entity.
    public var configuration: String?
    /// Options, keyed by ``PersistentStoreOption``.
    public var options: [String: any Sendable]

    /// A description of a store of `type` at `url`. Automatic migration with an inferred
    /// mapping model is on, as Core Data's container sets it.
    public init(type: StoreType = .inMemory, url: URL? = nil) {
        self.type = type
        self.url = url
        options = [
            PersistentStoreOption.migratePersistentStoresAutomatically: true,
            PersistentStoreOption.inferMappingModelAutomatically: true,
        ]
    }

    /// Whether the store is opened read-only.
    public var isReadOnly: Bool {
        get { options[PersistentStoreOption.readOnly] as? Bool ?? false }
        set { options[PersistentStoreOption.readOnly] = newValue }
    }

    /// Whether a store written by an older model version is migrated when it is added: from the
    /// version of the model's bundle that wrote it (or the model the store carries) to the
    /// current one. With ``shouldInferMappingModelAutomatically`` (both are on by default, as
    /// in Core Data), nothing else is needed.
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[PersistentStoreOption.migratePersistentStoresAutomatically] as? Bool ?? false }
        set { options[PersistentStoreOption.migratePersistentStoresAutomatically] = newValue }
    }

    /// Whether that migration infers its mapping model.
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[PersistentStoreOption.inferMappingModelAutomatically] as? Bool ?? false }
        set { options[PersistentStoreOption.inferMappingModelAutomatically] = newValue }
    }

    public var description: String {
        "\(type) store\(url.map { " at \($0.path)" } ?? "")"
    }
}
