import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// `NSPersistentStoreDescription` as Core Data code uses it (issue 33): a class, changed in
/// place where the container holds it, with `setOption(_:forKey:)`, SQLite pragmas
/// (`NSSQLitePragmasOption`, run on every connection), `NSSQLiteManualVacuumOption` and
/// `NSSQLiteAnalyzeOption`, and `loadPersistentStores(completionHandler:)` adding the stores
/// before it returns unless `shouldAddStoreAsynchronously` is set.
@Suite struct PersistentStoreDescriptionTests {
    @Test func theContainersDescriptionIsChangedInPlace() throws {
        let container = PersistentContainer(name: "Library", managedObjectModel: try libraryModel())
        let description = try #require(container.persistentStoreDescriptions.first)
        description.setOption(true, forKey: PersistentStoreOption.persistentHistoryTracking)
        description.setValue("NORMAL", forPragmaNamed: "synchronous")
        description.timeout = 2.5
        let held = try #require(container.persistentStoreDescriptions.first)
        #expect(held.options[PersistentStoreOption.persistentHistoryTracking] as? Bool == true)
        #expect(held.sqlitePragmas["synchronous"] as? String == "NORMAL")
        #expect(held.timeout == 2.5)
        description.setValue(nil, forPragmaNamed: "synchronous")
        #expect(held.sqlitePragmas.isEmpty)
        // As Core Data code sets them: a dictionary literal of strings.
        description.setOption(["journal_mode": "WAL", "synchronous": "OFF"], forKey: PersistentStoreOption.sqlitePragmas)
        #expect(held.sqlitePragmas["synchronous"] as? String == "OFF")
        #expect(try SQLitePragmas(option: held.options[PersistentStoreOption.sqlitePragmas]).statements == ["PRAGMA synchronous = OFF"])
        #expect(held.shouldMigrateStoreAutomatically && held.shouldInferMappingModelAutomatically, "Core Data's container defaults")
    }

    /// The pragmas run on the store's writer and on each reader it opens.
    @Test func sqlitePragmasRunOnEveryConnection() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(
            type: .sqlite, at: directory.appendingPathComponent("Library.sqlite"),
            options: [PersistentStoreOption.sqlitePragmas: ["cache_size": 1234, "synchronous": "OFF", "journal_mode": "wal"] as [String: any Sendable]])
        let sqlite = try #require(store as? SQLiteStore)
        #expect(try sqlite.writer?.scalar("PRAGMA cache_size") == .integer(1234))
        #expect(try sqlite.writer?.scalar("PRAGMA synchronous") == .integer(0))
        let reader = try sqlite.pool.take()
        #expect(try reader.scalar("PRAGMA cache_size") == .integer(1234))
        sqlite.pool.giveBack(reader)
        try await backgroundContext(coordinator).perform { context in
            try Tag(context: context).label = "still saves"
            try context.save()
        }
    }

    /// A journal mode the store cannot work in, a locking mode, or a value that is not a
    /// pragma's is refused with a typed error before any file is made.
    @Test(arguments: [
        ["journal_mode": "DELETE"], ["locking_mode": "EXCLUSIVE"], ["synchronous": "OFF; DROP TABLE ZTAG"], ["cache size": 10],
    ] as [[String: any Sendable]])
    func unworkablePragmasAreRefusedBeforeAnyFileIsMade(_ pragmas: [String: any Sendable]) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let error = await #expect(throws: PersistenceError.self) {
            try await coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.sqlitePragmas: pragmas])
        }
        #expect(error?.code == .invalidOption)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    /// `NSSQLiteAnalyzeOption` leaves the planner's statistics; `NSSQLiteManualVacuumOption`
    /// rebuilds the file, which then holds what it held.
    @Test func analyzeAndVacuumRunWhenTheStoreIsAdded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        let first = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await first.addPersistentStore(type: .sqlite, at: url)
        try await backgroundContext(first).perform { context in
            for index in 0..<200 { try Tag(context: context).label = "tag \(index)" }
            try context.save()
        }
        try await first.removePersistentStore(store)
        let second = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let reopened = try await second.addPersistentStore(
            type: .sqlite, at: url, options: [PersistentStoreOption.sqliteAnalyze: true, PersistentStoreOption.sqliteManualVacuum: true])
        let writer = try #require((reopened as? SQLiteStore)?.writer)
        #expect(try writer.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") == .integer(1))
        #expect(try await backgroundContext(second).perform { try $0.count(for: FetchRequest<Tag>()) } == 200)
    }

    /// Core Data's default: the completion-handler form adds the stores before it returns, the
    /// handler called on the calling thread; here called from a thread that is not a task's, as
    /// an app's start-up code is.
    @Test func theCompletionHandlerFormAddsTheStoresBeforeItReturns() async throws {
        let container = PersistentContainer(name: "Library", managedObjectModel: try libraryModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        let (calledBeforeReturn, stores) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let called = Collected()
                container.loadPersistentStores { _, error in _ = called.add(error.map { "\($0)" } ?? "ok") }
                continuation.resume(returning: (called.all, container.persistentStoreCoordinator.persistentStores.count))
            }
        }
        #expect(calledBeforeReturn == ["ok"])
        #expect(stores == 1)
    }
}
