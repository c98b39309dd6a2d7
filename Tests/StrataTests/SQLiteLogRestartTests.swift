import Foundation
@testable import Strata
import Testing

/// The SQLite store keeps its write-ahead log short although a generation's snapshot is always
/// pinned (`SQLiteStore+LogRestart`): SQLite starts the log over only when no read transaction
/// reads from it, and left to its automatic checkpoint, the store's log grew by every save while
/// it was open. The threshold here is the store's `wal_autocheckpoint` pragma, set low
/// (Core Data's `NSSQLitePragmasOption`) so that a few saves cross it.
@Suite struct SQLiteLogRestartTests {
    static let threshold = 16

    /// A coordinator with a SQLite store whose log restarts past `threshold` frames.
    static func coordinator(at url: URL) async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [PersistentStoreOption.sqlitePragmas: ["wal_autocheckpoint": threshold] as [String: any Sendable]])
        return coordinator
    }

    static func newStoreURL() throws -> URL {
        try ScratchStores.folder().appendingPathComponent("\(UUID().uuidString).sqlite")
    }

    /// The frames the store's log holds now, as a connection of its own reads them (a passive
    /// checkpoint's count, which copies what no reader needs and changes nothing else).
    static func logFrames(of url: URL) throws -> Int64 {
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: .seconds(1))
        var frames: Int64 = -1
        try connection.statement("PRAGMA wal_checkpoint(PASSIVE)").forEachRow { frames = $0.int64(1) }
        return frames
    }

    static func logBytes(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path + "-wal")
        return (attributes[.size] as? Int) ?? 0
    }

    static func saveTags(_ count: Int, from label: Int = 0, in context: ManagedObjectContext) async throws {
        for number in label..<(label + count) {
            try await context.perform { context in
                try Tag(context: context).label = "tag \(number)"
                try context.save()
            }
        }
    }

    @Test func theLogStartsOverWhileTheCurrentGenerationIsPinned() async throws {
        let url = try Self.newStoreURL()
        let coordinator = try await Self.coordinator(at: url)
        let writer = backgroundContext(coordinator)
        try await Self.saveTags(200, in: writer)

        // A save writes a frame per page it changes (the tag table's, now and then
        // Z_PRIMARYKEY's when a block of reference numbers is taken), so 200 saves without a
        // restart leave hundreds; restarted, the log never holds much more than the threshold and
        // one save. A frame is a 4,096-byte page and its 24-byte header.
        let frameSize = 4096 + 24
        #expect(try Self.logBytes(of: url) < 4 * Self.threshold * frameSize, "the log file grew past a few restarts' worth")
        #expect(try await writer.perform { try $0.count(for: FetchRequest<Tag>()) } == 200)
        #expect(try Self.logFrames(of: url) < Int64(4 * Self.threshold))
        let reopened = try await Self.coordinator(at: url)
        #expect(try await backgroundContext(reopened).perform { try $0.count(for: FetchRequest<Tag>()) } == 200, "every save is in the file")
    }

    /// Batch requests write through the same writer, and restart the log as saves do: a store
    /// written to by batch inserts alone keeps its log short too.
    @Test func batchInsertsAloneRestartTheLog() async throws {
        let url = try Self.newStoreURL()
        let coordinator = try await Self.coordinator(at: url)
        let context = backgroundContext(coordinator)
        for number in 0..<200 {
            try await context.perform { context in
                _ = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": "tag \(number)"]]))
            }
        }
        #expect(try await context.perform { try $0.count(for: FetchRequest<Tag>()) } == 200)
        #expect(try Self.logFrames(of: url) < Int64(4 * Self.threshold))
    }

    /// A context pinned to an old generation (Core Data's `setQueryGenerationFrom(.current)`)
    /// keeps reading it: its read transaction holds the log, which restarts once it lets go.
    @Test func aPinnedGenerationKeepsItsViewAndTheLogUntilItLetsGo() async throws {
        let url = try Self.newStoreURL()
        let coordinator = try await Self.coordinator(at: url)
        let writer = backgroundContext(coordinator)
        try await Self.saveTags(1, in: writer)
        let reader = backgroundContext(coordinator)
        #expect(try await reader.perform { try $0.setQueryGenerationFrom(.current); return try $0.count(for: FetchRequest<Tag>()) } == 1)

        try await Self.saveTags(100, from: 1, in: writer)
        #expect(try await reader.perform { try $0.count(for: FetchRequest<Tag>()) } == 1, "the pinned generation sees none of the later saves")
        let held = try Self.logFrames(of: url)
        #expect(held > Int64(4 * Self.threshold), "the pinned read transaction keeps the log from restarting")

        try await reader.perform { try $0.setQueryGenerationFrom(nil) }
        try await Self.saveTags(2, from: 101, in: writer)
        #expect(try Self.logFrames(of: url) < held, "restarted once no context read the old generation")
        #expect(try await reader.perform { try $0.count(for: FetchRequest<Tag>()) } == 103)
    }

    /// A snapshot moves to a new read transaction only when nothing was committed between: else
    /// it keeps the one it had, and what it sees.
    @Test func aSnapshotIsRenewedOnlyWhenNothingChanged() throws {
        let url = try Self.newStoreURL()
        let setup = try SQLiteConnection(url: url, readOnly: false, create: true, busyTimeout: .seconds(1))
        try setup.execute("PRAGMA journal_mode = WAL")
        try setup.execute("CREATE TABLE t (x INTEGER)")
        try setup.execute("INSERT INTO t VALUES (1)")
        let pool = SQLiteConnectionPool(url: url, busyTimeout: .seconds(1))
        let snapshot = try SQLiteReadSnapshot(pool: pool)
        func count() throws -> SQLValue? { try snapshot.read { try $0.scalar("SELECT count(*) FROM t") } }

        try setup.execute("INSERT INTO t VALUES (2)")
        #expect(try snapshot.renew(unless: { true }) == false)
        #expect(try count() == .integer(1), "a refused renewal keeps the old read transaction")

        #expect(try snapshot.renew(unless: { false }) == true)
        #expect(try count() == .integer(2), "a renewed snapshot reads from a transaction begun at the renewal")
    }
}
