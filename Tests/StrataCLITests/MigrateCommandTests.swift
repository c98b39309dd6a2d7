import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata migrate`, run as a user would, and killed as a crash would.
@Suite struct MigrateCommandTests {
    static let library = "Migrations/Library.xcdatamodeld"
    static let libraryV1 = "Migrations/Library.xcdatamodeld/Library.xcdatamodel"

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func versionOneStore(in directory: URL, books: Int = 0, named name: String = "Library.store") async throws -> URL {
        let store = directory.appendingPathComponent(name)
        var source = "Migrations/library-v1.jsonl"
        if books > 0 {
            let file = directory.appendingPathComponent("many.jsonl")
            var lines = [#"{"entity": "Author", "id": "a", "values": {"name": "Anonymous"}}"#]
            for index in 0..<books {
                lines.append(#"{"entity": "Book", "id": "b\#(index)", "values": {"title": "Book \#(index)", "pages": \#(index % 1000)}, "relationships": {"author": "a"}}"#)
            }
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            source = file.path
        }
        let result = try await StrataTool.run("import", store.path, "--model", Self.libraryV1, "--from", source)
        #expect(result.status == 0, "\(result.errors)")
        return store
    }

    @Test func dryRunSaysWhatEachStageDoesAndChangesNothing() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await versionOneStore(in: directory)
        let before = try Data(contentsOf: store)
        let result = try await StrataTool.run("migrate", store.path, "--model", Self.library, "--dry-run")
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Store \(store.path): written by version 'Library' of Library")
        #expect(lines[1] == "Plan: 3 stages to 'Library 4'")
        #expect(lines.contains("  1. Library → Library 2 (inferred)"))
        #expect(lines.contains("       Imprint: entityRenamed (from Publisher)"))
        #expect(lines.contains("       Book.authors: cardinalityChanged (to-one → to-many)"))
        #expect(lines.contains("  3. Library 3 → Library 4 (inferred)"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test func migrateRunsEveryStageAndVerifies() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await versionOneStore(in: directory)
        let backup = directory.appendingPathComponent("Library.backup")
        let result = try await StrataTool.run("migrate", store.path, "--model", Self.library, "--backup", backup.path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasSuffix("Migrated to 'Library 4' and verified: 9 objects; the original is at \(backup.path).\n"))
        let verify = try await StrataTool.run("verify", store.path, "--model", Self.library)
        #expect(verify.status == 0)
        let again = try await StrataTool.run("migrate", store.path, "--model", Self.library)
        #expect(again.output.hasSuffix("Nothing to do: the store is at 'Library 4'.\n"))
        let query = try await StrataTool.run("query", store.path, "--entity", "Book", "--model", Self.library, "--where", "ANY authors.name == 'Jane Austen'")
        #expect(query.output.split(separator: "\n").count == 4, "\(query.output)")
    }

    /// The Library's steps (an entity renamed, a to-one become a to-many, attributes added and
    /// removed) done in SQL on a SQLite store leave the objects the binary store's rewrite does,
    /// with the same reference numbers.
    @Test func aSQLiteStoreMigratesAsTheBinaryStoreDoes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try await versionOneStore(in: directory)
        let sqlite = try await versionOneStore(in: directory, named: "Library.sqlite")
        for store in [binary, sqlite] {
            let result = try await StrataTool.run("migrate", store.path, "--model", Self.library)
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.hasSuffix("Migrated to 'Library 4' and verified: 9 objects.\n"), "\(result.output)")
        }
        let commands = StoreCommandsTests()
        var dumps: [String] = []
        for store in [binary, sqlite] { dumps.append(try await StrataTool.run("dump", store.path, "--model", Self.library).output) }
        // Author.books becomes ordered in version 4: the order it starts with is each store's own.
        #expect(try commands.normalized(dumps[0], sortingToManys: true) == commands.normalized(dumps[1], sortingToManys: true))
        let references = dumps.map { dump in
            Set(dump.split(separator: "\n").compactMap { line in line.firstMatch(of: /"id":"[^"]*\/([A-Za-z]+\/p[0-9]+)"/).map { String($0.output.1) } })
        }
        #expect(references[0] == references[1] && references[0].count == 9)
    }

    @Test func aChangeInferenceRefusesNeedsAMapping() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Contacts.store")
        let people = directory.appendingPathComponent("people.jsonl")
        try Data(#"{"entity": "Person", "id": "p", "values": {"firstName": "Ada", "lastName": "Lovelace", "phone": "555"}}"#.utf8).write(to: people)
        #expect(try await StrataTool.run(
            "import", store.path, "--model", "Migrations/Contacts.xcdatamodeld/Contacts.xcdatamodel", "--from", people.path).status == 0)
        let before = try Data(contentsOf: store)
        let refused = try await StrataTool.run("migrate", store.path, "--model", "Migrations/Contacts.xcdatamodeld")
        #expect(refused.status != 0)
        #expect(refused.output.contains("  1. Contacts → Contacts 2 (cannot be inferred)"))
        #expect(refused.errors == """
            Error: the migration needs a mapping model (--mapping FILE.json) for:
              - Contacts → Contacts 2: Person.phone: String → Integer 64: the types are incompatible, so inference cannot map it \
            (Core Data refuses it too); give the step a custom mapping

            """)
        #expect(try Data(contentsOf: store) == before)

        let mapped = try await StrataTool.run(
            "migrate", store.path, "--model", "Migrations/Contacts.xcdatamodeld", "--mapping", "Migrations/Contacts-1-to-2.mapping.json")
        #expect(mapped.status == 0, "\(mapped.errors)")
        #expect(mapped.output.contains("(custom mapping Contacts-1-to-2.mapping.json)"))
        let dump = try await StrataTool.run("dump", store.path)
        #expect(dump.output.contains(#""fullName":"Ada Lovelace""#))
    }

    /// A migration killed with SIGKILL at random moments always leaves a store that opens with
    /// all its objects (at the version of the last completed stage), and a later run finishes.
    @Test func aKilledMigrationLeavesAStoreThatOpens() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await versionOneStore(in: directory, books: 20_000)
        let pristine = try Data(contentsOf: store)
        let bundle = try ModelBundle(contentsOf: StrataTool.packageRoot.appendingPathComponent(Self.library))
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        var interrupted = 0
        var midWrite = 0
        for round in 0..<15 {
            try pristine.write(to: store)
            let migration = try await ChildProcess.killed(
                try StrataTool.binary, ["migrate", store.path, "--model", Self.library], in: StrataTool.packageRoot,
                after: .nanoseconds(Int64.random(in: 20_000_000...900_000_000, using: &generator)), waitingForOutput: false)
            if migration.signal == SIGKILL { interrupted += 1 }
            if try FileManager.default.contentsOfDirectory(atPath: directory.path).contains(where: { $0.contains("strata-tmp") }) {
                midWrite += 1
            }

            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: store)
            let version = try bundle.version(forStoreMetadata: metadata)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: version.model)
            let added = try await coordinator.addPersistentStore(type: .binary, at: store)
            let books = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform {
                try $0.count(for: FetchRequest<ManagedObject>(entityName: "Book"))
            }
            try await coordinator.removePersistentStore(added)
            #expect(books == 20_000, "round \(round) (seed \(seed)): at '\(version.name)', \(books) books")
        }
        #expect(interrupted > 8)
        #expect(midWrite > 0, "some kills landed while a stage was writing its new file (seed \(seed))")
        let finish = try await StrataTool.run("migrate", store.path, "--model", Self.library)
        #expect(finish.status == 0, "\(finish.errors)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("strata-tmp") }
        #expect(leftovers.isEmpty, "the next open removed the partial files")
    }
}
