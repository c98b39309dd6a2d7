import Foundation
import Strata

/// What `strata inspect` prints about a Core Data XML store: its metadata, whether it carries a
/// model, and how many objects of each entity it holds (read with that model, or the one given).
struct XMLStoreReport: Encodable {
    var file: String
    var fileSize: Int
    var storeType: String
    var storeUUID: String
    var frameworkVersion: String?
    var modelVersionHashes: [String: String]
    var modelVersionIdentifiers: [String]
    var model: String
    var userMetadata: [String: MetadataText]
    var objectCounts: [String: Int] = [:]
    var writtenBy: String?
    /// What stopped the objects from loading, if anything.
    var failure: String?
    private let summary: StoreMetadataSummary

    private enum CodingKeys: String, CodingKey {
        case file, fileSize, storeType, storeUUID, frameworkVersion, modelVersionHashes, modelVersionIdentifiers, model, userMetadata
        case objectCounts, writtenBy, failure
    }

    init(url: URL, modelPath: String?) async throws {
        let metadata = try XMLStore.metadataForPersistentStore(at: url)
        file = url.path
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
        let summary = StoreMetadataSummary(metadata)
        self.summary = summary
        storeType = summary.storeType
        storeUUID = summary.storeUUID
        frameworkVersion = summary.frameworkVersion
        modelVersionHashes = summary.modelVersionHashes
        modelVersionIdentifiers = summary.modelVersionIdentifiers
        userMetadata = summary.userMetadata
        let carried = try? ManagedObjectModel(cachedInStoreMetadata: metadata)
        model = carried != nil ? "carried in the store's metadata (Strata's), so no command needs --model" : "not carried: give --model to commands that read objects"
        if let modelPath { writtenBy = try InspectStore.version(ofStoreMetadata: metadata, in: ModelSource(path: modelPath)) }
        guard let opened = try modelPath.map({ try StoreFileKind.model(for: url, given: $0) }) ?? carried else { return }
        var verifier = XMLStoreVerifier(url: url)
        verifier.model = opened
        try await verifier.run()
        objectCounts = verifier.objectCounts
        failure = verifier.problems.first
    }

    var isSound: Bool { failure == nil }

    var text: String {
        var lines = [
            "Store \(file)",
            "  XML (Core Data's format), \(fileSize) bytes, type \(storeType), UUID \(storeUUID)"
                + (frameworkVersion.map { ", written by Core Data framework \($0)" } ?? ""),
        ]
        if let writtenBy { lines.append("  written by \(writtenBy)") }
        lines += summary.lines(model: model)
        lines += StoreMetadataSummary.lines(objectCounts: objectCounts)
        if let failure { lines.append("  cannot be read whole: \(failure)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
