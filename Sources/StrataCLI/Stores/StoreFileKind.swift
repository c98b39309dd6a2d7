import Foundation
import Strata

/// Which kind of store a file on the command line is: told by its first bytes (a SQLite database
/// starts with "SQLite format 3"), or for a file not yet there, by its extension (`.sqlite`).
enum StoreFileKind {
    case binary, sqlite

    init(of url: URL) {
        self = StoreFileMigration.storeType(ofFileAt: url) == .sqlite ? .sqlite : .binary
    }

    var storeType: StoreType {
        switch self {
        case .binary: .binary
        case .sqlite: .sqlite
        }
    }

    /// The model to open the store at `url` with: the one `path` names (its current version),
    /// else the one the store carries.
    static func model(for url: URL, given path: String?) throws -> ManagedObjectModel {
        if let path { return try ModelSource(path: path).model(version: nil).model }
        switch StoreFileKind(of: url) {
        case .binary: return try BinaryStoreFile(contentsOf: url).recordedModel()
        case .sqlite:
            do {
                return try SQLiteStore.cachedModel(ofStoreAt: url)
            } catch let error as StoreError where error.code == .noModel {
                throw CommandFailure("\(error.description). Give it with --model MODEL (a .xcdatamodel or .xcdatamodeld)")
            }
        }
    }

    /// Whether the store at `url` records persistent history (and so takes saves only from a
    /// coordinator that records them too).
    static func recordsHistory(_ url: URL) throws -> Bool {
        switch StoreFileKind(of: url) {
        case .binary: try BinaryStore.recordsPersistentHistory(at: url)
        case .sqlite: try SQLiteStore.recordsPersistentHistory(at: url)
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
