import Foundation
import Strata
import StrataPostgres

/// What `strata inspect` prints about a PostgreSQL store: its metadata, the model it carries,
/// how many objects of each entity its tables hold, and what `strata verify` would find.
struct PostgresStoreReport: Encodable, TextReport {
    var store: String
    var storeType: String
    var storeUUID: String
    var modelVersionHashes: [String: String]
    var modelVersionIdentifiers: [String]
    var modelVersionChecksum: String?
    /// Whether the store carries its model (in Strata's metadata).
    var model: String
    var userMetadata: [String: MetadataText]
    var objectCounts: [String: Int] = [:]
    /// What ``PostgresStoreVerifier`` found: nothing in a sound store.
    var problems: [String] = []
    var writtenBy: String?
    private let summary: StoreMetadataSummary

    private enum CodingKeys: String, CodingKey {
        case store, storeType, storeUUID, modelVersionHashes, modelVersionIdentifiers, modelVersionChecksum, model, userMetadata
        case objectCounts, problems, writtenBy
    }

    init(url: URL, argument: String, modelPath: String?) throws {
        let metadata = try PostgresStore.metadataForPersistentStore(at: url)
        store = argument
        summary = StoreMetadataSummary(metadata)
        storeType = summary.storeType
        storeUUID = summary.storeUUID
        modelVersionHashes = summary.modelVersionHashes
        modelVersionIdentifiers = summary.modelVersionIdentifiers
        modelVersionChecksum = summary.modelVersionChecksum
        userMetadata = summary.userMetadata
        let carried = try? ManagedObjectModel(cachedInStoreMetadata: metadata)
        model = carried != nil
            ? "carried in the store's metadata (Strata's), so no command needs --model" : "not carried: give --model to commands that read objects"
        var verifier = PostgresStoreVerifier(url: url)
        // The checks need the model that wrote the store: the bundle's version that did, the
        // model given if it did, else the one the store carries.
        let given = try modelPath.flatMap { path -> ManagedObjectModel? in
            let source = try ModelSource(path: path)
            if let bundle = source.bundle { return try? bundle.version(forStoreMetadata: metadata).model }
            let model = try source.model(version: nil).model
            return model.isConfiguration(nil, compatibleWithStoreMetadata: metadata) ? model : nil
        }
        verifier.model = given ?? carried
        if verifier.model != nil {
            try verifier.run()
            objectCounts = verifier.objectCounts
            problems = verifier.problems
        }
        if let modelPath {
            writtenBy = try InspectStore.version(ofStoreMetadata: metadata, in: ModelSource(path: modelPath))
        }
    }

    var isSound: Bool { problems.isEmpty }

    var text: String {
        var lines = ["Store \(store)", "  PostgreSQL (Core Data's tables), type \(storeType), UUID \(storeUUID)"]
        if let writtenBy { lines.append("  written by \(writtenBy)") }
        lines += summary.lines(model: model)
        lines += StoreMetadataSummary.lines(objectCounts: objectCounts)
        lines.append(isSound ? "  checks (strata verify): ok" : "  checks (strata verify) found problems:")
        if !isSound { lines += problems.prefix(20).map { "    \($0)" } }
        return lines.joined(separator: "\n") + "\n"
    }
}
