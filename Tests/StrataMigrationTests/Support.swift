import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// The repository's versioned models, shared test stores, and temporary folders.
enum MigrationFixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let library = packageRoot.appendingPathComponent("Migrations/Library.xcdatamodeld")
    static let contacts = packageRoot.appendingPathComponent("Migrations/Contacts.xcdatamodeld")
    static let contactsMapping = packageRoot.appendingPathComponent("Migrations/Contacts-1-to-2.mapping.json")
    static let sharedXcodeModels = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodels")

    /// The store types the migration tests run on: file extensions (binary, SQLite, Core Data's
    /// XML), and `postgres` when a test
    /// server is available (`PostgresTestServer`).
    static let storeKinds = ["store", "sqlite", "xml"] + (PostgresTestServer.isAvailable ? ["postgres"] : [])

    /// A new store's URL: a file named `name.kind` in `directory`, or a schema of its own on the
    /// PostgreSQL test server.
    static func storeURL(_ name: String, _ kind: String, in directory: URL) async throws -> URL {
        guard kind == "postgres" else { return directory.appendingPathComponent("\(name).\(kind)") }
        return try await PostgresTestServer.newStoreURL()
    }

    /// The type of the store at `url`, told by its scheme or its file's extension.
    static func storeType(of url: URL) -> StoreType {
        if ["postgres", "postgresql"].contains(url.scheme ?? "") { return .postgreSQL }
        switch url.pathExtension {
        case "sqlite": return .sqlite
        case "xml": return .xml
        default: return .binary
        }
    }

    /// Playlists whose songs are an ordered one-to-many (kept in the songs' rows); `rating`
    /// adds an optional attribute to Song, a change inference makes.
    static func playlistModel(rating: Bool) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Playlist") {
                AttributeDescription("name", .string)
                RelationshipDescription("songs", toMany: "Song", inverse: "playlist", ordered: true)
            }
            EntityDescription("Song") {
                AttributeDescription("title", .string)
                if rating { AttributeDescription("rating", .integer16, optional: true) }
                RelationshipDescription("playlist", toOne: "Playlist", inverse: "songs")
            }
        }
    }

    /// A store of ``playlistModel(rating:)`` without ratings: one playlist of Alpha, Beta and
    /// Gamma, in the order Gamma, Alpha, Beta (the songs inserted first).
    static func makePlaylistStore(at url: URL) async throws {
        try await withStore(at: url, model: try playlistModel(rating: false)) { context in
            let songs = try ["Alpha", "Beta", "Gamma"].map { title in
                let song = try context.insertNewObject(forEntityName: "Song")
                try song.setValue(title, forKey: "title")
                return song
            }
            let playlist = try context.insertNewObject(forEntityName: "Playlist")
            try playlist.setValue("Mix", forKey: "name")
            try playlist.setValue([songs[2], songs[0], songs[1]], forKey: "songs")
        }
    }

    /// The titles of the playlist's songs, in its order.
    static func playlistOrder(at url: URL) async throws -> [String] {
        try await withStore(at: url, model: try playlistModel(rating: true)) { context in
            let playlist = try #require(try context.objects("Playlist", sortedBy: "name").first)
            return try #require(try playlist.value(forKey: "songs") as? [ManagedObject]).map { try $0.value(forKey: "title") as? String ?? "" }
        }
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Opens a store with `model` (of the type ``storeType(of:)`` tells), runs `body` in a
    /// context, saves, and closes it.
    @discardableResult
    static func withStore<T: Sendable>(
        at url: URL, model: ManagedObjectModel, _ body: @escaping @Sendable (isolated ManagedObjectContext) throws -> T
    ) async throws -> T {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: storeType(of: url), at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let result = try await context.perform { context in
            let result = try body(context)
            if context.hasChanges { try context.save() }
            return result
        }
        try await coordinator.removePersistentStore(store)
        return result
    }
}

extension ManagedObjectContext {
    /// Every object of an entity, sorted by a key.
    func objects(_ entity: String, sortedBy key: String) throws -> [ManagedObject] {
        try fetch(FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [.ascending(key)]))
    }
}
