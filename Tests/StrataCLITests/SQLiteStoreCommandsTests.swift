import Foundation
import StrataTestSupport
import Testing

/// The store commands on SQLite stores: one Strata wrote (which carries its model, so no command
/// needs `--model`), and a real one Core Data wrote (`../shared/fixtures/sqlite`, when present).
@Suite struct SQLiteStoreCommandsTests {
    let commands = StoreCommandsTests()

    @Test func aSQLiteStoreGoesThroughEveryCommand() async throws {
        let directory = try commands.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = directory.appendingPathComponent("library.sqlite").path
        let binary = directory.appendingPathComponent("library.store").path
        for store in [sqlite, binary] {
            let imported = try await StrataTool.run("import", store, "--model", StoreCommandsTests.model, "--from", StoreCommandsTests.objects)
            #expect(imported.status == 0, "\(imported.errors)")
        }
        let header = try Data(contentsOf: URL(fileURLWithPath: sqlite)).prefix(16)
        #expect(header == Data("SQLite format 3\u{0}".utf8), "a .sqlite path makes a SQLite store")

        let dump = try await StrataTool.run("dump", sqlite)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(try commands.normalized(dump.output) == commands.normalized(try await StrataTool.run("dump", binary).output))
        #expect(dump.output.contains("x-coredata://"))

        let inspect = try await StrataTool.run("inspect", sqlite)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.contains("SQLite (Core Data's format)"))
        // Strata writes Core Data's model cache, as Core Data does (issue 29, §4).
        #expect(inspect.output.contains("model: carried in the store (Core Data's Z_MODELCACHE)"))
        #expect(inspect.output.contains("    Book 2\n"), "\(inspect.output)")
        #expect(inspect.output.contains("SQLite quick check: ok"))

        let verify = try await StrataTool.run("verify", sqlite)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output == "\(sqlite): sound (5 objects)\n")

        let query = try await StrataTool.run("query", sqlite, "--entity", "Book", "--where", "pages > 400", "--format", "json")
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output.split(separator: "\n").count == 1 && query.output.contains("Emma"))
    }

    @Test func verifyFindsWhatIsWrongWithASQLiteStore() async throws {
        let directory = try commands.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.sqlite").path
        #expect(try await StrataTool.run("import", store, "--model", StoreCommandsTests.model, "--from", StoreCommandsTests.objects).status == 0)
        // A book pointing at an author that is not there, and a counter below the keys in use:
        // what a foreign writer could leave.
        let sqlite = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("UPDATE ZBOOK SET ZAUTHOR = 999 WHERE Z_PK = 1")
            db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 0")
            db.commit()
            """, store])
        #expect(sqlite.status == 0, "\(String(decoding: sqlite.errors, as: UTF8.self))")
        let verify = try await StrataTool.run("verify", store)
        #expect(verify.status == 1)
        #expect(verify.output.contains("1 Book object(s) point at missing objects through ZAUTHOR"), "\(verify.output)")
        #expect(verify.output.contains("numbers would be handed out twice"), "\(verify.output)")

        // A file that is a database but not a Core Data store.
        let foreign = directory.appendingPathComponent("foreign.sqlite").path
        let make = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "-c", "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('CREATE TABLE T (x)')", foreign,
        ])
        #expect(make.status == 0)
        let refused = try await StrataTool.run("inspect", foreign)
        #expect(refused.status != 0)
        #expect(refused.errors.contains("not a Core Data store"), "\(refused.errors)")
        #expect(!refused.errors.contains("Fatal error"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: sharedStore), "the shared SQLite fixtures are not here"))
    func aStoreCoreDataWroteIsReadWithTheModelItCarries() async throws {
        let directory = try commands.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: Self.sharedStore + suffix) {
            try FileManager.default.copyItem(atPath: Self.sharedStore + suffix, toPath: directory.appendingPathComponent("store.sqlite" + suffix).path)
        }
        let store = directory.appendingPathComponent("store.sqlite").path
        let inspect = try await StrataTool.run("inspect", store)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.contains("written by Core Data framework 1344"))
        #expect(inspect.output.contains("model: carried in the store (Core Data's Z_MODELCACHE)"))
        #expect(inspect.output.contains("    Page 4970\n"))
        let verify = try await StrataTool.run("verify", store)
        #expect(verify.output == "\(store): sound (5468 objects)\n", "\(verify.output)")
        let query = try await StrataTool.run("query", store, "--entity", "Writer", "--sort", "age", "--format", "json")
        #expect(query.output.split(separator: "\n").count == 2, "\(query.output)")
    }

    static let wireStore = StrataTool.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/sqlite/wireapp__wire-ios-data-model/Tests/Resources/store2-21-1.wiredatabase").path

    /// A real store with a suffixed join column (`Z_9USERS (Z_9SYSTEMMESSAGES, Z_14USERS1)`) and
    /// an image Core Data kept in an external file that did not come with it: `verify` finds
    /// that file missing and nothing else; `dump` writes all 99 objects, the image left out,
    /// lists the file and exits with 1.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: wireStore), "the shared SQLite fixtures are not here"))
    func aRealStoreWithAMissingExternalFileDumpsEverythingElse() async throws {
        let directory = try commands.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: Self.wireStore + suffix, toPath: directory.appendingPathComponent("store.sqlite" + suffix).path)
        }
        let store = directory.appendingPathComponent("store.sqlite").path
        let file = directory.appendingPathComponent(".store_SUPPORT/_EXTERNAL_DATA/30084A1C-76CF-4976-8312-8E8EFCF6F510").path
        let verify = try await StrataTool.run("verify", store)
        #expect(verify.status == 1)
        #expect(verify.output == "\(store): 1 problem\n  User p1.imageMediumData: its external file \(file) is missing or unreadable\n", "\(verify.output)")

        let dump = try await StrataTool.run("dump", store)
        #expect(dump.status == 1)
        #expect(dump.output.split(separator: "\n").count == 99)
        #expect(dump.errors.hasSuffix(
            "error: 1 externally stored value(s) cannot be read; their objects were written without them:\n"
                + "  x-coredata://E8AFD1EB-9427-4A64-ABDA-AA06F7B1092C/User/p1 imageMediumData: \(file) (the file is missing)\n"), "\(dump.errors)")
        let user = try #require(dump.output.split(separator: "\n").first {
            $0.contains("\"id\":\"x-coredata://E8AFD1EB-9427-4A64-ABDA-AA06F7B1092C/User/p1\"")
        })
        #expect(!user.contains("imageMediumData") && user.contains("\"emailAddress\":\"393@example.com\""))
    }

    static let migrationExamples = StrataTool.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/sqlite/wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite").path
    static let migrationBundle = StrataTool.packageRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/fixtures/xcdatamodels/wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"
    ).path

    /// The three stores Core Data wrote at versions 1, 2 and 3 of their bundle (one with its WAL
    /// beside it) migrate to version 4 with `strata migrate`, keeping every object and URI.
    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: migrationExamples), "the shared SQLite fixtures are not here"),
        arguments: [1, 2, 3])
    func realCoreDataStoresMigrateThroughTheirLaterVersions(_ version: Int) async throws {
        let directory = try commands.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = "CoreDataMigration_Example_\(version).sqlite"
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: "\(Self.migrationExamples)/\(name)\(suffix)") {
            try FileManager.default.copyItem(atPath: "\(Self.migrationExamples)/\(name)\(suffix)", toPath: directory.appendingPathComponent(name + suffix).path)
        }
        let store = directory.appendingPathComponent(name).path
        let before = try await StrataTool.run("dump", store)
        #expect(before.status == 0, "\(before.errors)")
        let ids = { (dump: String) in Set(dump.split(separator: "\n").compactMap { $0.firstMatch(of: /"id":"([^"]+)"/).map { String($0.output.1) } }) }
        let migrated = try await StrataTool.run("migrate", store, "--model", Self.migrationBundle)
        #expect(migrated.status == 0, "\(migrated.errors)")
        #expect(migrated.output.contains("Migrated to 'CoreDataMigration_Example 4' and verified: \(ids(before.output).count) objects."), "\(migrated.output)")
        let after = try await StrataTool.run("dump", store)
        #expect(after.status == 0, "\(after.errors)")
        #expect(ids(after.output) == ids(before.output) && !ids(before.output).isEmpty)
        // Version 1's colour, renamed in version 2, is still there at version 4.
        #expect(after.output.contains(#""hexColor":"01A5BC""#) == (version < 3 || before.output.contains("01A5BC")))
    }

    static let sharedStore = StrataTool.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/sqlite/alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite").path
}
