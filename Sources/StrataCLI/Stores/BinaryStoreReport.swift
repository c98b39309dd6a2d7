import Foundation
import Strata

/// What `strata inspect` prints about a store file.
struct BinaryStoreReport: Encodable {
    struct Chunk: Encodable {
        var index: Int
        var offset: Int
        var bytes: Int
        var entity: String?
        var objects: Int
        var error: String?
    }

    var file: String
    var fileSize: Int
    var formatVersion: Int
    var storeType: String
    var storeUUID: String
    var modelVersionHashes: [String: String]
    var modelVersionIdentifiers: [String]
    /// Core Data's model digest and checksum over the hashes (base64, as stored), when recorded.
    var modelVersionHashesDigest: String?
    var modelVersionChecksum: String?
    /// Whether the hashes are Core Data's (`StoreModelVersionHashesVersion` 3), not the ones
    /// Strata wrote before it computed Core Data's.
    var hashesAreCoreDatas: Bool
    /// The size of the model the store carries (compressed), when it carries one.
    var modelCacheBytes: Int?
    var userMetadata: [String: MetadataText]
    var objectCounts: [String: Int] = [:]
    var chunks: [Chunk] = []
    /// A problem that stopped the reading (a truncated file, a missing end record).
    var failure: String?
    /// Which model version wrote the store, when asked.
    var writtenBy: String?

    init(file: BinaryStoreFile) {
        self.file = file.url.path
        fileSize = file.fileSize
        formatVersion = file.formatVersion
        storeType = file.metadata[PersistentStore.storeTypeKey]?.stringValue ?? "?"
        storeUUID = file.storeIdentifier
        if case .dictionary(let hashes)? = file.metadata[PersistentStore.modelVersionHashesKey] {
            modelVersionHashes = hashes.mapValues { value in
                if case .data(let data) = value { return data.map { String(format: "%02x", $0) }.joined() }
                return "\(value)"
            }
        } else {
            modelVersionHashes = [:]
        }
        if case .array(let identifiers)? = file.metadata[PersistentStore.modelVersionIdentifiersKey] {
            modelVersionIdentifiers = identifiers.compactMap(\.stringValue)
        } else {
            modelVersionIdentifiers = []
        }
        hashesAreCoreDatas = !ManagedObjectModel.storeMetadataHasLegacyHashes(file.metadata)
        if case .data(let cache)? = file.metadata[PersistentStore.modelCacheKey] { modelCacheBytes = cache.count }
        modelVersionHashesDigest = file.metadata[PersistentStore.modelVersionHashesDigestKey]?.stringValue
        modelVersionChecksum = file.metadata[PersistentStore.modelVersionChecksumKey]?.stringValue
        let strataKeys: Set<String> = [
            PersistentStore.storeTypeKey, PersistentStore.storeUUIDKey, PersistentStore.modelVersionHashesKey,
            PersistentStore.modelVersionIdentifiersKey, PersistentStore.modelVersionHistoryKey, PersistentStore.nextReferencesKey,
            PersistentStore.modelVersionHashesDigestKey, PersistentStore.modelVersionChecksumKey,
            PersistentStore.modelVersionHashesVersionKey, PersistentStore.modelCacheKey,
        ]
        userMetadata = file.metadata.filter { !strataKeys.contains($0.key) }.mapValues(MetadataText.init)
        for entity in file.entities { objectCounts[entity.name] = 0 }
    }

    mutating func add(_ chunk: BinaryStoreFile.Chunk) {
        chunks.append(
            Chunk(
                index: chunk.index, offset: chunk.offset, bytes: chunk.size, entity: chunk.entity, objects: chunk.objects.count,
                error: chunk.error?.message))
        if let entity = chunk.entity { objectCounts[entity, default: 0] += chunk.objects.count }
    }

    var isSound: Bool { failure == nil && chunks.allSatisfy { $0.error == nil } }

    var text: String {
        var lines = [
            "Store \(file)",
            "  format version \(formatVersion), \(fileSize) bytes, type \(storeType), UUID \(storeUUID)",
        ]
        if let writtenBy { lines.append("  written by \(writtenBy)") }
        if !modelVersionIdentifiers.isEmpty { lines.append("  model version identifiers: \(modelVersionIdentifiers.joined(separator: ", "))") }
        lines.append(hashesAreCoreDatas ? "  model version hashes (Core Data's):" : "  model version hashes (Strata's own, from before it used Core Data's; replaced at the next save):")
        for (entity, hash) in modelVersionHashes.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(entity) \(hash)")
        }
        if let modelVersionChecksum { lines.append("  model version checksum: \(modelVersionChecksum)") }
        if let modelVersionHashesDigest { lines.append("  model version hashes digest: \(modelVersionHashesDigest)") }
        if let modelCacheBytes { lines.append("  model: carried in the store (\(modelCacheBytes) bytes), so no command needs --model") }
        for (key, value) in userMetadata.sorted(by: { $0.key < $1.key }) {
            lines.append("  metadata \(key) = \(value.text)")
        }
        let total = objectCounts.values.reduce(0, +)
        lines.append("  objects: \(total) in \(counted(chunks.count, "chunk"))")
        for (entity, count) in objectCounts.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(entity) \(count)")
        }
        let damaged = chunks.filter { $0.error != nil }
        if damaged.isEmpty && failure == nil {
            lines.append("  checksums: every chunk's checksum holds")
        }
        for chunk in damaged {
            lines.append("  chunk \(chunk.index) at byte \(chunk.offset) is damaged: \(chunk.error ?? "")")
        }
        if let failure { lines.append("  reading stopped: \(failure)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
