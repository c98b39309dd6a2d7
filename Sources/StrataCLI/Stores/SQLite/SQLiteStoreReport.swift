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
    private let summary: StoreMetadataSummary

    private enum CodingKeys: String, CodingKey {
        case file, fileSize, storeType, storeUUID, journalMode, frameworkVersion, modelVersionHashes, modelVersionIdentifiers
        case modelVersionHashesDigest, modelVersionChecksum, model, userMetadata, objectCounts, quickCheck, writtenBy
    }

    init(url: URL, modelPath: String?) throws {
        let metadata = try SQLiteStore.metadataForPersistentStore(at: url)
        file = url.path
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
        let summary = StoreMetadataSummary(metadata)
        self.summary = summary
        storeType = summary.storeType
        storeUUID = summary.storeUUID
        frameworkVersion = summary.frameworkVersion
        modelVersionHashes = summary.modelVersionHashes
        modelVersionIdentifiers = summary.modelVersionIdentifiers
        modelVersionHashesDigest = summary.modelVersionHashesDigest
        modelVersionChecksum = summary.modelVersionChecksum
        userMetadata = summary.userMetadata

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
        lines += summary.lines(model: model)
        lines += StoreMetadataSummary.lines(objectCounts: objectCounts)
        lines.append(isSound ? "  SQLite quick check: ok" : "  SQLite quick check found problems:")
        if !isSound { lines += quickCheck.prefix(20).map { "    \($0)" } }
        return lines.joined(separator: "\n") + "\n"
    }
}
