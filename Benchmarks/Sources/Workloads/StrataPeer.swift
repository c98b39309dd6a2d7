import Foundation
import Strata
import StrataPostgres

/// A person as a managed object: the subject of every Strata workload.
public final class Person: ManagedObject {
    @Attribute("name") public var name: String
    @Attribute("email") public var email: String
    @Attribute("age") public var age: Int
    @Attribute("score") public var score: Double
    @Attribute("created") public var created: Date
    @Relationship("manager") public var manager: Person?
}

/// Strata's side of each workload: on the binary store, on the SQLite store for a path that
/// ends in `.sqlite` (the "Strata SQLite" column), or on the PostgreSQL store for a
/// `postgres://` URL (the "Strata Postgres" column).
public enum StrataPeer {
    public static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel {
                EntityDescription("Person", class: Person.self) {
                    AttributeDescription("name", .string)
                    AttributeDescription("email", .string)
                    AttributeDescription("age", .integer16)
                    AttributeDescription("score", .double)
                    AttributeDescription("created", .date)
                    RelationshipDescription("manager", toOne: "Person", inverse: "reports")
                    RelationshipDescription("reports", toMany: "Person", inverse: "manager")
                    FetchIndexDescription("byEmail", "email")
                }
            }
        } catch {
            fatalError("The benchmark model is invalid: \(error)")
        }
    }()

    /// Inserts `records` into `context` (not saved). Their managers must be among them, as
    /// they are in any slice of ``PersonRecord/generate(count:)`` that starts at a multiple of 10.
    public static func insert(_ records: some Collection<PersonRecord>, into context: ManagedObjectContext) async throws {
        let records = Array(records)
        try await context.perform { context in
            var people: [Person] = []
            people.reserveCapacity(records.count)
            let first = records.first?.id ?? 0
            for record in records {
                let person = try Person(context: context)
                person.name = record.name
                person.email = record.email
                person.age = record.age
                person.score = record.score
                person.created = record.created
                if let managerID = record.managerID {
                    precondition(managerID >= first, "a batch must start at a multiple of 10, with its managers")
                    person.manager = people[managerID - first]
                }
                people.append(person)
            }
        }
    }

    /// Workload 7: `workers` private-queue contexts on one coordinator insert their share of
    /// `records` at once, saving after every `batch` people.
    public static func insertConcurrently(_ records: [PersonRecord], workers: Int, batch: Int, at url: URL) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: storeType(of: url), at: url, options: storeOptions(of: url))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
                    for start in stride(from: worker * batch, to: records.count, by: workers * batch) {
                        try await insert(records[start..<min(start + batch, records.count)], into: context)
                        try await save(context)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    public static func save(_ context: ManagedObjectContext) async throws {
        try await context.perform { try $0.save() }
    }

    /// The next version of ``model``, for workload 6: a lightweight change that adds an
    /// attribute and renames one (`email` becomes `mail`; the index goes with the old name).
    public static let nextModel: ManagedObjectModel = {
        do {
            return try ManagedObjectModel {
                EntityDescription("Person") {
                    AttributeDescription("name", .string)
                    AttributeDescription(name: "mail", type: .string, renamingIdentifier: "email")
                    AttributeDescription("age", .integer16)
                    AttributeDescription("score", .double)
                    AttributeDescription("created", .date)
                    AttributeDescription("nickname", .string, optional: true)
                    RelationshipDescription("manager", toOne: "Person", inverse: "reports")
                    RelationshipDescription("reports", toMany: "Person", inverse: "manager")
                }
            }
        } catch {
            fatalError("The benchmark's next model is invalid: \(error)")
        }
    }()

    /// Workload 6: migrates the store at `url` in place to ``nextModel``, with an inferred mapping.
    public static func migrate(_ url: URL) async throws {
        try await MigrationManager(sourceModel: model, destinationModel: nextModel)
            .migrateStore(at: url, mapping: MappingModel.inferred(from: model, to: nextModel))
    }

    /// Workload 6 on a SQLite store: in place, in SQL, through a plan of the two versions.
    public static func migrateSQLite(_ url: URL) async throws {
        let bundle = try ModelBundle(name: "People", versions: [("People", model), ("People 2", nextModel)])
        try await MigrationPlan(bundle: bundle).migrateStore(at: url)
    }

    /// Workload 8: inserts one person into the store `context` reads, and saves.
    public static func insertOneAndSave(_ record: PersonRecord, into context: ManagedObjectContext) async throws {
        try await insert([record], into: context)
        try await save(context)
    }

    /// Workload 6's yardstick: what the same store costs to open, change one object, and save.
    public static func loadAndSave(_ url: URL) async throws {
        let context = try await open(url)
        try await context.perform { context in
            let people = try context.fetch(FetchRequest<Person>(predicate: try FetchPredicate(format: "email == %@", "p0@example.org")))
            for person in people { person.score += 1 }
            try context.save()
        }
    }

    /// Workload 2: opens the store at `url` until a context can fetch. Where there is no file
    /// yet, the store starts empty, and the first save writes it (workload 1).
    public static func open(
        _ url: URL, concurrencyType: ManagedObjectContext.ConcurrencyType = .privateQueue
    ) async throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: storeType(of: url), at: url, options: storeOptions(of: url))
        return ManagedObjectContext(concurrencyType: concurrencyType, persistentStoreCoordinator: coordinator)
    }

    /// Workload 3: fetches every person as a managed object and reads one attribute of each.
    public static func fetchAll(_ context: ManagedObjectContext) async throws -> Int {
        try await context.perform { context in
            try context.fetch(FetchRequest<Person>()).reduce(0) { $0 &+ $1.age }
        }
    }

    /// Workload 3, as a Core Data user walks a large result: `fetchBatchSize` 1,000, each batch
    /// turned back into faults once read (`refresh(_:mergeChanges: false)`), so that the values
    /// of one batch at a time are held.
    public static func fetchAllInBatches(_ context: ManagedObjectContext) async throws -> Int {
        try await context.perform { context in
            var request = FetchRequest<Person>()
            request.fetchBatchSize = 1_000
            let people = try context.fetch(request)
            var sum = 0
            for start in stride(from: 0, to: people.count, by: 1_000) {
                let batch = people[start..<min(start + 1_000, people.count)]
                for person in batch { sum &+= person.age }
                for person in batch { context.refresh(person, mergeChanges: false) }
            }
            return sum
        }
    }

    /// Workload 4: changes the score of one person in ten, then saves.
    public static func updateTenthAndSave(_ context: ManagedObjectContext) async throws {
        try await context.perform { context in
            let people = try context.fetch(FetchRequest<Person>(predicate: try FetchPredicate(format: "age < 10")))
            for person in people { person.score += 1 }
            try context.save()
        }
    }

    /// Workload 5a: one fetch by email per entry of `emails`, on the `byEmail` index.
    public static func lookUp(_ emails: [String], in context: ManagedObjectContext) async throws -> Int {
        try await context.perform { context in
            var found = 0
            for email in emails {
                let request = FetchRequest<Person>(predicate: try FetchPredicate(format: "email == %@", email))
                found += try context.fetch(request).count
            }
            return found
        }
    }

    /// Workload 5b: a range predicate on the unindexed `score`.
    public static func scan(below bound: Double, in context: ManagedObjectContext) async throws -> Int {
        try await context.perform { context in
            try context.fetch(FetchRequest<Person>(predicate: try FetchPredicate(format: "score < %@", bound))).count
        }
    }

    /// The store a URL names: PostgreSQL for `postgres://`, SQLite for `.sqlite`, else binary.
    static func storeType(of url: URL) -> StoreType {
        if url.scheme == "postgres" {
            PostgresStore.register()
            return .postgreSQL
        }
        return url.pathExtension == "sqlite" ? .sqlite : .binary
    }

    /// The options a workload opens the store at `url` with: on SQLite, `synchronous = NORMAL`,
    /// the durability GRDB sets in WAL mode and the C API peer sets by hand, so that a save is
    /// measured against its peers' with the same syncs (the store's default, SQLite's `FULL`,
    /// syncs the WAL at every commit: one `fdatasync` more per save).
    static func storeOptions(of url: URL) -> [String: any Sendable] {
        guard storeType(of: url) == .sqlite else { return [:] }
        return [PersistentStoreOption.sqlitePragmas: ["synchronous": "NORMAL"] as [String: any Sendable]]
    }

    /// A new PostgreSQL store on the benchmark server, in a schema of its own.
    public static func newPostgresStore(_ name: String) throws -> URL {
        guard let server = PostgresNIOPeer.serverURL, let url = URL(string: server + "?schema=" + PostgresNIOPeer.newSchema(name)) else {
            throw PersistenceError(.storeNotFound, "no STRATA_POSTGRES_URL")
        }
        return url
    }

    /// A PostgreSQL store of `count` people, made once per size and process.
    public static func postgresFixture(count: Int) async throws -> URL {
        guard let server = PostgresNIOPeer.serverURL, let url = URL(string: server + "?schema=bench_strata_fixture_\(count)") else {
            throw PersistenceError(.storeNotFound, "no STRATA_POSTGRES_URL")
        }
        let context = try await open(url)
        let stored = try await context.perform { try $0.count(for: FetchRequest<Person>()) }
        if stored != count {
            precondition(stored == 0, "a fixture schema with \(stored) people, not \(count)")
            try await insert(PersonRecord.generate(count: count), into: context)
            try await save(context)
        }
        return url
    }

    /// A store of `count` people, made once per size (see ``Fixtures``): binary, or SQLite.
    public static func fixture(count: Int, sqlite: Bool = false) async throws -> URL {
        try await Fixtures.file(sqlite ? "people-strata.sqlite" : "people.strata", count: count) { url in
            let context = try await open(url)
            try await insert(PersonRecord.generate(count: count), into: context)
            try await save(context)
            // Everything into the main file, which is all that is moved into place and copied.
            if sqlite { try SQLiteCPeer.Connection(url).execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }
}
