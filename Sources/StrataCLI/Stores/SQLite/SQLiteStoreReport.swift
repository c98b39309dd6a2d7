import Foundation
import Strata

/// What `strata inspect` prints about a SQLite store: Core Data's metadata, the model the store
/// carries, how many objects of each entity its tables hold, and SQLite's own quick check.
struct SQLiteStoreReport: Encodable {
    var file: String
    var fileSize: Int
    var storeType: String
    var storeUUID: String
    var journalMode: String
    var frameworkVersion: String?
    var modelVersionHashes: [String: String]
    var modelVersionIdentifiers: [String]
    var modelVersionHashesDigest: String?
    var modelVersionChecksum: String?
    /// Where the store carries its model: Core Data's `Z_MODELCACHE`, Strata's metadata, or nowhere.
    var model: String
    var userMetadata: [String: MetadataText]
    var objectCounts: [String: Int] = [:]
    /// `PRAGMA quick_check`: "ok", or SQLite's list of what is wrong.
    var quickCheck: [String]
    var writtenBy: String?

    init(url: URL, modelPath: String?) throws {
        let metadata = try SQLiteStore.metadataForPersistentStore(at: url)
        file = url.path
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
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

        let connection = try SQLiteInspection(url: url)
        journalMode = try connection.text("PRAGMA journal_mode") ?? "?"
        quickCheck = try connection.texts("PRAGMA quick_check")
        let carried = try? SQLiteStore.cachedModel(ofStoreAt: url)
        if try connection.modelCacheSize() > 0 {
            model = "carried in the store (Core Data's Z_MODELCACHE), so no command needs --model"
        } else if carried != nil {
            model = "carried in the store's metadata (Strata's), so no command needs --model"
        } else {
            model = "not carried: give --model to commands that read objects"
        }
        let opened = try modelPath.map { try ModelSource(path: $0).model(version: nil).model } ?? carried
        if let opened { objectCounts = try connection.objectCounts(model: opened) }
        if let modelPath {
            writtenBy = try InspectStore.version(ofStoreMetadata: metadata, in: ModelSource(path: modelPath))
        }
    }

    var isSound: Bool { quickCheck == ["ok"] }

    var text: String {
        var lines = [
            "Store \(file)",
            "  SQLite (Core Data's format), \(fileSize) bytes, type \(storeType), UUID \(storeUUID), journal \(journalMode)"
                + (frameworkVersion.map { ", written by Core Data framework \($0)" } ?? ""),
        ]
        if let writtenBy { lines.append("  written by \(writtenBy)") }
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
        if !objectCounts.isEmpty {
            lines.append("  objects: \(objectCounts.values.reduce(0, +))")
            for (entity, count) in objectCounts.sorted(by: { $0.key < $1.key }) {
                lines.append("    \(entity) \(count)")
            }
        }
        lines.append(isSound ? "  SQLite quick check: ok" : "  SQLite quick check found problems:")
        if !isSound { lines += quickCheck.prefix(20).map { "    \($0)" } }
        return lines.joined(separator: "\n") + "\n"
    }
}
