import Foundation
import Strata

/// The parts of a store's metadata `strata inspect` shows for every store in Core Data's
/// scheme (SQLite, PostgreSQL): its identity, the model version it records, and what users put
/// there.
struct StoreMetadataSummary {
    var storeType: String
    var storeUUID: String
    var frameworkVersion: String?
    var modelVersionHashes: [String: String]
    var modelVersionIdentifiers: [String]
    var modelVersionHashesDigest: String?
    var modelVersionChecksum: String?
    var userMetadata: [String: MetadataText]

    init(_ metadata: [String: MetadataValue]) {
        storeType = metadata[PersistentStore.storeTypeKey]?.stringValue ?? "?"
        storeUUID = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? "?"
        if case .dictionary(let hashes)? = metadata[PersistentStore.modelVersionHashesKey] {
            modelVersionHashes = hashes.mapValues { value in
                if case .data(let data) = value { return data.map { String(format: "%02x", $0) }.joined() }
                return "\(value)"
            }
        } else {
            modelVersionHashes = [:]
        }
        if case .array(let identifiers)? = metadata[PersistentStore.modelVersionIdentifiersKey] {
            modelVersionIdentifiers = identifiers.compactMap(\.stringValue)
        } else {
            modelVersionIdentifiers = []
        }
        modelVersionHashesDigest = metadata[PersistentStore.modelVersionHashesDigestKey]?.stringValue
        modelVersionChecksum = metadata[PersistentStore.modelVersionChecksumKey]?.stringValue
        if case .integer(let version)? = metadata["NSPersistenceFrameworkVersion"] { frameworkVersion = "\(version)" }
        let known: Set<String> = [
            PersistentStore.storeTypeKey, PersistentStore.storeUUIDKey, PersistentStore.modelVersionHashesKey,
            PersistentStore.modelVersionIdentifiersKey, PersistentStore.modelVersionHistoryKey, PersistentStore.modelVersionHashesDigestKey,
            PersistentStore.modelVersionChecksumKey, PersistentStore.modelVersionHashesVersionKey, PersistentStore.modelCacheKey,
            "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel",
        ]
        userMetadata = metadata.filter { !known.contains($0.key) }.mapValues(MetadataText.init)
    }

    /// The lines after a report's first two: the model version and the users' metadata.
    func lines(model: String) -> [String] {
        var lines: [String] = []
        if !modelVersionIdentifiers.isEmpty { lines.append("  model version identifiers: \(modelVersionIdentifiers.joined(separator: ", "))") }
        lines.append("  model version hashes (Core Data's):")
        for (entity, hash) in modelVersionHashes.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(entity) \(hash)")
        }
        if let modelVersionChecksum { lines.append("  model version checksum: \(modelVersionChecksum)") }
        if let modelVersionHashesDigest { lines.append("  model version hashes digest: \(modelVersionHashesDigest)") }
        lines.append("  model: \(model)")
        for (key, value) in userMetadata.sorted(by: { $0.key < $1.key }) {
            lines.append("  metadata \(key) = \(value.text)")
        }
        return lines
    }

    /// The object counts, as the reports show them.
    static func lines(objectCounts: [String: Int]) -> [String] {
        guard !objectCounts.isEmpty else { return [] }
        return ["  objects: \(objectCounts.values.reduce(0, +))"]
            + objectCounts.sorted(by: { $0.key < $1.key }).map { "    \($0.key) \($0.value)" }
    }
}
