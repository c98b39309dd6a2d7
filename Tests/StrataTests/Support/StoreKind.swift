import DirectoryStore
import Foundation
import JSONLinesStore
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// The store types the conformance suite runs over: Strata's in-memory, binary, SQLite and
/// PostgreSQL stores (the last when a test server is given: ``PostgresTestServer``), and the
/// samples' stores of a user's own: JSON lines (atomic) and a directory (incremental).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, binary, sqlite, xml, jsonLines, directory, postgres

    static var allCases: [StoreKind] {
        [.inMemory, .binary, .sqlite, .xml, .jsonLines, .directory] + (PostgresTestServer.isAvailable ? [.postgres] : [])
    }

    var testDescription: String { rawValue }

    var type: StoreType {
        switch self {
        case .inMemory: .inMemory
        case .binary: .binary
        case .sqlite: .sqlite
        case .xml: .xml
        case .jsonLines: JSONLinesStore.storeType
        case .directory: DirectoryStore.storeType
        case .postgres: .postgreSQL
        }
    }

    /// The stores the fetch and predicate suites run over: the coordinator's in-memory tables
    /// (every atomic store's path) and an incremental store read through snapshots.
    static let queryable: [StoreKind] = [.inMemory, .sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    /// Whether the store is an atomic store (its file written whole at each save).
    var isAtomic: Bool { self == .binary || self == .xml || self == .jsonLines }

    /// Whether the store keeps its objects when its coordinator goes away.
    var isPersistent: Bool { self != .inMemory }

    /// Whether the store is a file (or a folder) on this machine.
    var isFile: Bool { self != .inMemory && self != .postgres }

    /// A new store's URL: a file in `folder`, or a schema of its own on the test server.
    func newStoreURL(in folder: URL) async throws -> URL {
        self == .postgres ? try await PostgresTestServer.newStoreURL() : folder.appendingPathComponent("Store.\(rawValue)")
    }
}

/// A store of one kind in a temporary folder, reopened as a user would.
struct StoreUnderTest {
    let kind: StoreKind
    let model: ManagedObjectModel
    let directory: URL
    let url: URL
    private let memoryCoordinator: PersistentStoreCoordinator?

    init(_ kind: StoreKind, model: ManagedObjectModel) async throws {
        JSONLinesStore.register()
        DirectoryStore.register()
        PostgresStore.register()
        self.kind = kind
        self.model = model
        directory = try Fixtures.temporaryDirectory()
        url = try await kind.newStoreURL(in: directory)
        memoryCoordinator = kind.isPersistent ? nil : try await makeCoordinator(model)
    }

    /// A coordinator with the store added: a new one each time for a file store (so its
    /// objects come from the file), the one coordinator for the in-memory store.
    func open() async throws -> PersistentStoreCoordinator {
        if let memoryCoordinator { return memoryCoordinator }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: kind.type, at: url)
        return coordinator
    }

    /// Opens the store, runs `body` on a new context, and closes the store.
    func withContext<T: Sendable>(_ body: @Sendable (isolated ManagedObjectContext) throws -> T) async throws -> T {
        let coordinator = try await open()
        let result = try await backgroundContext(coordinator).perform(body)
        if kind.isPersistent, let store = coordinator.persistentStores.first {
            try await coordinator.removePersistentStore(store)
        }
        return result
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
        // A Postgres store's schema goes with the test process (PostgresTestServer's sweep):
        // a coordinator of the test may still be reading it.
    }
}
