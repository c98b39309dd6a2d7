import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Migration in place of a PostgreSQL store, as app servers meet it on a rollout: servers with
/// the new model starting at once, and a server still on the old one. (The data rules run on
/// PostgreSQL in `LightweightDataRuleTests` and `CustomMigrationTests`.) The schemas are left to
/// the next run's sweep: the servers' generations hold them open until the test process ends.
@Suite(.enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
struct PostgresMigrationTests {
    static let options: [String: any Sendable] = [
        PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true,
    ]

    /// Two servers open a version-1 store with the current model at once: it migrates through
    /// every version once, keeping its UUID and every object's URI; a server still on version 1
    /// then saves nothing.
    @Test func twoServersStartingWithANewModelMigrateTheStoreOnce() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        let uris = try await LibraryMigrationTests.versionOneStore(at: url, bundle: bundle)
        let uuid = try PersistentStoreCoordinator.metadataForPersistentStore(type: .postgreSQL, at: url)[PersistentStore.storeUUIDKey]

        // A server on version 1, with the store open through the migration. It has read the
        // store: its generation holds a transaction on the tables, which it lets go of when the
        // migration says it is coming (else the migration would wait, then fail on lock_timeout).
        let old = PersistentStoreCoordinator(managedObjectModel: bundle.versions[0].model)
        try await old.addPersistentStore(type: .postgreSQL, at: url)
        let read = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: old).perform { context in
            try context.count(for: FetchRequest<ManagedObject>(entityName: "Book"))
        }
        #expect(read == 3)

        let model = bundle.currentVersion.model
        async let first = Self.open(url, model: model)
        async let second = Self.open(url, model: model)
        let servers = try await [first, second]

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .postgreSQL, at: url)
        #expect(metadata[PersistentStore.storeUUIDKey] == uuid, "the store keeps its UUID")
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        for server in servers {
            let ids = try uris.mapValues { try #require(server.managedObjectID(forURIRepresentation: $0)) }
            #expect(ids["Penguin"]?.entityName == "Imprint", "a URI taken before an entity rename resolves after it")
            let report = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: server).perform { context in
                let emma = try context.existingObject(with: ids["Emma"]!)
                let authors = try #require(try emma.value(forKey: "authors") as? Set<ManagedObject>)
                return [
                    "\(try emma.value(forKey: "title") ?? "-") \(try emma.value(forKey: "pageCount") ?? "-")",
                    authors.map { "\((try? $0.value(forKey: "name")) as? String ?? "")" }.sorted().joined(separator: ","),
                    "\(try context.objects("Book", sortedBy: "title").map { try $0.value(forKey: "title") as? String ?? "" })",
                    "\(try context.objects("Imprint", sortedBy: "name").map { try $0.value(forKey: "name") as? String ?? "" })",
                    "\(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")))",
                ]
            }
            #expect(report == ["Emma 474", "Jane Austen", "[\"Emma\", \"Middlemarch\", \"Persuasion\"]", "[\"Penguin\"]", "0"])
        }

        // New objects are numbered above every number handed out before.
        let newBook = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: servers[0]).perform { context in
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Daniel Deronda", forKey: "title")
            try context.save()
            return book.objectID
        }
        let oldNumbers = try uris.values.compactMap { try #require(servers[0].managedObjectID(forURIRepresentation: $0)).referenceNumber }
        #expect((newBook.referenceNumber ?? 0) > (oldNumbers.max() ?? 0))

        // The server still on version 1 cannot write into the migrated tables.
        let error = await #expect(throws: PersistenceError.self) {
            try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: old).perform { context in
                try context.insertNewObject(forEntityName: "Author").setValue("Anne Brontë", forKey: "name")
                try context.save()
            }
        }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("another server migrated the store") == true)
        let authors = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: servers[1]).perform { context in
            try context.objects("Author", sortedBy: "name").map { try $0.value(forKey: "name") as? String ?? "" }
        }
        #expect(authors == ["George Eliot", "Jane Austen"])
    }

    /// A migration that fails part-way (a later version's rule the data breaks) leaves every
    /// table as it was, and a server on the old model goes on saving.
    @Test func aFailedMigrationLeavesTheStoreAsItWas() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let v1 = try LightweightDataRuleTests.v1()
        _ = try await LightweightDataRuleTests.store(at: url, titles: ["Kept", nil])
        let required = try LightweightDataRuleTests.v2(LightweightDataRuleTests.titleRequired(default: nil))
        let bundle = try ModelBundle(name: "Notes", versions: [("v1", v1), ("v2", required)])
        let tablesBefore = try await Self.tables(of: url)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: required)
        let error = await #expect(throws: MigrationError.self) {
            try await coordinator.addPersistentStore(type: .postgreSQL, at: url, options: [
                PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true,
                PersistentStoreOption.migrator: StagedMigrator(bundle: bundle),
            ])
        }
        #expect(error?.code == .missingValues)
        #expect(try await Self.tables(of: url) == tablesBefore, "no table set aside, made or dropped")
        let titles = try await MigrationFixtures.withStore(at: url, model: v1) { context in
            try context.insertNewObject(forEntityName: "Note").setValue("Saved after", forKey: "title")
            return try context.objects("Note", sortedBy: "words").compactMap { try $0.value(forKey: "title") as? String }
        }
        #expect(titles.sorted() == ["Kept", "Saved after"])
    }

    /// The migration makes every table of the new model and fills it: none has planner
    /// statistics until autovacuum's next round (and a table under its threshold, never), so
    /// the migration analyzes them once committed, as PostgreSQL's "Populating a Database"
    /// advises after a bulk load. `pg_class.reltuples` is -1 for a table never analyzed.
    @Test func aMigrationAnalyzesTheTablesItFilled() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        _ = try await LibraryMigrationTests.versionOneStore(at: url, bundle: bundle)
        _ = try await Self.open(url, model: bundle.currentVersion.model)
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        // The model's tables: its hierarchies' (ZWORK holds the books) and join tables
        // (Z_1BOOKS), not the store's own.
        let statistics = try await PostgresTestServer.rows(
            "SELECT c.relname, c.reltuples::bigint::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = '\(schema)' AND c.relkind = 'r' AND c.relname LIKE 'Z%' "
                + "AND c.relname NOT IN ('Z_METADATA', 'Z_PRIMARYKEY', 'Z_MODELCACHE') ORDER BY 1")
        #expect(statistics.count >= 4, "\(statistics)")
        let unanalyzed = statistics.filter { $0.count == 2 && $0[1] == "-1" }
        #expect(unanalyzed.isEmpty, "\(unanalyzed)")
        #expect(statistics.contains { $0.first == "ZWORK" && $0.last == "3" }, "\(statistics)")
    }

    /// Opens the store at `url` with `model`, migrating it on open as Core Data's two options do.
    static func open(_ url: URL, model: ManagedObjectModel) async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options)
        return coordinator
    }

    /// Every table of the store's schema, and of any schema a migration sets tables aside in.
    static func tables(of url: URL) async throws -> [String] {
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        return try await PostgresTestServer.rows(
            "SELECT schemaname || '.' || tablename FROM pg_tables WHERE schemaname = '\(schema)' OR schemaname LIKE 'zstrata\\_migrating\\_%' ORDER BY 1"
        ).map { $0.first.flatMap { $0 } ?? "" }
    }
}
