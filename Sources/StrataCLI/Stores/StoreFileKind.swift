import Foundation
import Strata
import StrataPostgres

/// Which kind of store the command line names: a `postgres://` URL is a PostgreSQL store; a file
/// is told by its first bytes (a SQLite database starts with "SQLite format 3", Core Data's XML
/// store with an XML declaration), or for a file not yet there, by its extension (`.sqlite`, `.xml`).
enum StoreFileKind {
    case binary, sqlite, xml, postgres

    init(of url: URL) {
        if Self.isPostgres(url) {
            self = .postgres
        } else {
            switch StoreFileMigration.storeType(ofFileAt: url) {
            case .sqlite: self = .sqlite
            case .xml: self = .xml
            default: self = .binary
            }
        }
    }

    /// The store an argument names: a PostgreSQL URL, or a file path.
    static func url(_ argument: String) throws -> URL {
        let lowered = argument.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else { return URL(fileURLWithPath: argument) }
        guard let url = URL(string: argument) else { throw CommandFailure("not a URL: \(argument)") }
        PostgresStore.register()
        return url
    }

    static func isPostgres(_ url: URL) -> Bool {
        ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "")
    }

    /// Whether a store is there to open: a file that exists, or a PostgreSQL URL (the server
    /// says, when the store is added).
    static func exists(_ url: URL) -> Bool {
        isPostgres(url) || FileManager.default.fileExists(atPath: url.path)
    }

    var storeType: StoreType {
        switch self {
        case .binary: .binary
        case .sqlite: .sqlite
        case .xml: .xml
        case .postgres: .postgreSQL
        }
    }

    /// The model to open the store at `url` with: the one `path` names (its current version),
    /// else the one the store carries.
    /// The model to read the store at `url` with: the one given — of a bundle, the version that
    /// wrote the store — or the one the store carries.
    ///
    /// - Throws: ``CommandFailure`` before anything is read when the model given did not write
    ///   the store (no version of a bundle did), or when the store carries none and none is given.
    static func model(for url: URL, given path: String?) throws -> ManagedObjectModel {
        if let path { return try matchingModel(at: path, for: url) }
        switch StoreFileKind(of: url) {
        case .binary: return try BinaryStoreFile(contentsOf: url).recordedModel()
        case .postgres:
            guard let model = try ManagedObjectModel(cachedInStoreMetadata: PostgresStore.metadataForPersistentStore(at: url)) else {
                throw CommandFailure("the store carries no model. Give it with --model MODEL (a .xcdatamodel or .xcdatamodeld)")
            }
            return model
        case .xml:
            // Core Data's XML store carries no model; one Strata wrote carries Strata's form of it.
            guard let model = try ManagedObjectModel(cachedInStoreMetadata: XMLStore.metadataForPersistentStore(at: url)) else {
                throw CommandFailure("the XML store carries no model. Give it with --model MODEL (a .xcdatamodel or .xcdatamodeld)")
            }
            return model
        case .sqlite:
            do {
                return try SQLiteStore.cachedModel(ofStoreAt: url)
            } catch let error as StoreError where error.code == .noModel {
                throw CommandFailure("\(error.description). Give it with --model MODEL (a .xcdatamodel or .xcdatamodeld)")
            }
        }
    }

    private static func matchingModel(at path: String, for url: URL) throws -> ManagedObjectModel {
        let source = try ModelSource(path: path)
        let metadata: [String: MetadataValue]
        switch StoreFileKind(of: url) {
        case .binary: metadata = try BinaryStoreFile(contentsOf: url).metadata
        case .sqlite: metadata = try SQLiteStore.metadataForPersistentStore(at: url)
        case .xml: metadata = try XMLStore.metadataForPersistentStore(at: url)
        case .postgres: metadata = try PostgresStore.metadataForPersistentStore(at: url)
        }
        if let bundle = source.bundle {
            do {
                return try bundle.version(forStoreMetadata: metadata).model
            } catch let error as PersistenceError {
                throw CommandFailure("\(error.message) (\(path))")
            }
        }
        let model = try source.model(version: nil).model
        let differences = model.incompatibleEntities(inConfiguration: nil, storeMetadata: metadata)
        guard differences.isEmpty else {
            throw CommandFailure(
                "the model \(path) did not write this store (\(differences.joined(separator: ", ")) differ): "
                    + "give the model version that did, or its bundle (.xcdatamodeld)")
        }
        return model
    }

    /// Whether the store at `url` records persistent history (and so takes saves only from a
    /// coordinator that records them too).
    static func recordsHistory(_ url: URL) throws -> Bool {
        switch StoreFileKind(of: url) {
        case .binary: try BinaryStore.recordsPersistentHistory(at: url)
        case .sqlite: try SQLiteStore.recordsPersistentHistory(at: url)
        case .xml: false  // Core Data's XML store records no history.
        case .postgres: try PostgresStore.recordsPersistentHistory(at: url)
        }
    }

    /// A coordinator with the store at `url` added read-only, reading properties by name.
    /// `history`: with persistent history tracking, so that its history can be read.
    static func openReadOnly(
        _ url: URL, model: ManagedObjectModel, history: Bool = false
    ) async throws -> (PersistentStoreCoordinator, PersistentStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options: [String: any Sendable] = [PersistentStoreOption.readOnly: true, PersistentStoreOption.skipsModelVersionCheck: true]
        if history { options[PersistentStoreOption.persistentHistoryTracking] = true }
        let store = try await coordinator.addPersistentStore(type: StoreFileKind(of: url).storeType, at: url, options: options)
        return (coordinator, store)
    }
}
