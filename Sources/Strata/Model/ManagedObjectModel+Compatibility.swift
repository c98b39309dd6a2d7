import Foundation

extension ManagedObjectModel {
    /// The version of Core Data's hash algorithm that ``entityVersionHashesByName`` follows
    /// (Core Data's `NSStoreModelVersionHashesVersion`).
    public static let versionHashesVersion = 3

    /// The metadata a store records about the model that writes it: every entity's version
    /// hash with the model's digest and checksum over them (all Core Data's own), the version
    /// identifiers, the model itself (``init(cachedInStoreMetadata:)``) and, for a model from a
    /// bundle, the names of the versions up to this one (so that a later program can tell a
    /// store from a newer version).
    public func storeMetadata(forConfigurationName configuration: String?) -> [String: MetadataValue] {
        var hashes: [String: Data] = [:]
        for entity in entities(forConfigurationName: configuration) {
            hashes[entity.name] = entity.versionHash
        }
        var metadata: [String: MetadataValue] = [
            PersistentStore.modelVersionHashesKey: .dictionary(hashes.mapValues(MetadataValue.data)),
            PersistentStore.modelVersionHashesVersionKey: .integer(Int64(Self.versionHashesVersion)),
            PersistentStore.modelVersionHashesDigestKey: .string(Self.versionHashesDigest(hashes).base64EncodedString()),
            PersistentStore.modelVersionChecksumKey: .string(Self.versionChecksum(hashes).base64EncodedString()),
            PersistentStore.modelVersionIdentifiersKey: .array(versionIdentifiers.sorted().map(MetadataValue.string)),
            // The whole model, not only the configuration's: relationships may cross configurations.
            PersistentStore.modelCacheKey: .data(storeCacheData),
        ]
        if !versionHistory.isEmpty {
            metadata[PersistentStore.modelVersionHistoryKey] = .array(versionHistory.map(MetadataValue.string))
        }
        return metadata
    }

    /// Whether a store whose metadata is `metadata` holds the entities of a configuration (every
    /// entity for `nil`) exactly as this model describes them: same entities, same hashes.
    public func isConfiguration(_ configuration: String?, compatibleWithStoreMetadata metadata: [String: MetadataValue]) -> Bool {
        incompatibleEntities(inConfiguration: configuration, storeMetadata: metadata).isEmpty
    }

    /// Core Data's spelling of ``isConfiguration(_:compatibleWithStoreMetadata:)``:
    /// `model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)`.
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: MetadataValue]) -> Bool {
        isConfiguration(configuration, compatibleWithStoreMetadata: metadata)
    }

    /// Whether a store's metadata holds the hashes Strata wrote before it used Core Data's:
    /// such a store is compared by those, and its metadata is brought up to date at its next save.
    public static func storeMetadataHasLegacyHashes(_ metadata: [String: MetadataValue]) -> Bool {
        metadata[PersistentStore.modelVersionHashesKey] != nil && metadata[PersistentStore.modelVersionHashesVersionKey] == nil
    }

    /// The names of the entities whose hashes differ between this model and a store's metadata,
    /// sorted, each with what differs: "Book (changed)", "Shelf (not in the store)",
    /// "Magazine (only in the store)". Empty when they agree.
    public func incompatibleEntities(inConfiguration configuration: String?, storeMetadata metadata: [String: MetadataValue]) -> [String] {
        guard case .dictionary(let stored)? = metadata[PersistentStore.modelVersionHashesKey] else {
            return ["(the store records no model version hashes)"]
        }
        let legacy = Self.storeMetadataHasLegacyHashes(metadata)
        var differences: [String] = []
        let entities = entities(forConfigurationName: configuration)
        for entity in entities {
            switch stored[entity.name] {
            case nil: differences.append("\(entity.name) (not in the store)")
            case .data(let hash)? where hash == (legacy ? entity.legacyVersionHash : entity.versionHash): continue
            default: differences.append("\(entity.name) (changed)")
            }
        }
        let names = Set(entities.map(\.name))
        differences += stored.keys.filter { !names.contains($0) }.map { "\($0) (only in the store)" }
        return differences.sorted()
    }
}
