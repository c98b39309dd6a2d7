import Foundation
import Synchronization
import Strata
import Testing

/// The Library bundle's four versions: every lightweight rule, on a store with objects.
@Suite struct LibraryMigrationTests {
    /// A version-1 store: two authors, three books, a publisher, a note. Returns book URIs by title.
    static func versionOneStore(at url: URL, bundle: ModelBundle) async throws -> [String: URL] {
        try await MigrationFixtures.withStore(at: url, model: bundle.versions[0].model) { context in
            let austen = try context.insertNewObject(forEntityName: "Author")
            try austen.setValue("Jane Austen", forKey: "name")
            try austen.setValue(1775, forKey: "birthYear")
            let eliot = try context.insertNewObject(forEntityName: "Author")
            try eliot.setValue("George Eliot", forKey: "name")
            var books: [String: ManagedObject] = [:]
            for (title, pages, rating, author) in [("Emma", 474, 4.5, austen), ("Persuasion", 249, 4.25, austen), ("Middlemarch", 880, 5.0, eliot)] {
                let book = try context.insertNewObject(forEntityName: "Book")
                try book.setValue(title, forKey: "title")
                try book.setValue(pages, forKey: "pages")
                try book.setValue(Float(rating), forKey: "rating")
                try book.setValue(author, forKey: "author")
                books[title] = book
            }
            try context.insertNewObject(forEntityName: "Publisher").setValue("Penguin", forKey: "name")
            try context.insertNewObject(forEntityName: "Note").setValue("to be removed", forKey: "text")
            try context.save()
            var uris = books.mapValues { $0.objectID.uriRepresentation() }
            uris["Penguin"] = try context.objects("Publisher", sortedBy: "name").first?.objectID.uriRepresentation()
            return uris
        }
    }

    @Test func everyStepIsInferred() throws {
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        #expect(bundle.versions.map(\.name) == ["Library", "Library 2", "Library 3", "Library 4"])
        for (old, new) in zip(bundle.versions, bundle.versions.dropFirst()) {
            let mapping = try MappingModel.inferred(from: old.model, to: new.model)
            #expect(!mapping.entityMappings.isEmpty, "\(old.name) → \(new.name)")
        }
        let first = try MappingModel.inferred(from: bundle.versions[0].model, to: bundle.versions[1].model)
        #expect(first.mapping(forSource: "Publisher")?.destinationEntityName == "Imprint")
        #expect(first.mapping(forSource: "Note")?.kind == .remove)
        #expect(first.mapping(forDestination: "Tag")?.kind == .add)
    }

    @Test func aStoreMigratesThroughEveryVersionAndKeepsItsObjects() async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.store")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        let uris = try await Self.versionOneStore(at: url, bundle: bundle)
        let uuid = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)[PersistentStore.storeUUIDKey]

        let events = ProgressLog()
        let plan = MigrationPlan(bundle: bundle)
        try await plan.migrateStore(at: url, backup: directory.appendingPathComponent("Library.backup")) { events.add($0) }
        #expect(events.stages == ["Library → Library 2", "Library 2 → Library 3", "Library 3 → Library 4"])
        #expect(events.last?.objectsDone == events.last?.totalObjects)

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(metadata[PersistentStore.storeUUIDKey] == uuid, "the store keeps its UUID")
        #expect(bundle.currentVersion.model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        #expect(try bundle.versions[0].model.isConfiguration(
            nil, compatibleWithStoreMetadata: PersistentStoreCoordinator.metadataForPersistentStore(
                type: .binary, at: directory.appendingPathComponent("Library.backup"))), "the backup is the original")

        let coordinator = PersistentStoreCoordinator(managedObjectModel: bundle.currentVersion.model)
        try await coordinator.addPersistentStore(type: .binary, at: url)
        let ids = try uris.mapValues { try #require(coordinator.managedObjectID(forURIRepresentation: $0)) }
        #expect(ids["Penguin"]?.entityName == "Imprint", "a URI taken before an entity rename resolves after it")
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let report = try await context.perform { context in
            let emma = try context.existingObject(with: ids["Emma"]!)
            let authors = try #require(try emma.value(forKey: "authors") as? Set<ManagedObject>)
            let austen = try #require(authors.first)
            let austenBooks = try #require(try austen.value(forKey: "books") as? [ManagedObject])
            return [
                "\(try emma.value(forKey: "title") ?? "-")",
                "\(try emma.value(forKey: "pageCount") ?? "-")",
                "\(try emma.value(forKey: "rating") ?? "-")",
                "\((try emma.value(forKey: "subtitle") as? String).map { "'\($0)'" } ?? "-")",
                "\(try austen.value(forKey: "name") ?? "-") \(try austen.value(forKey: "birthYear") ?? "-")",
                austenBooks.map { "\((try? $0.value(forKey: "title")) as? String ?? "")" }.sorted().joined(separator: ","),
                "\(try context.count(for: FetchRequest<ManagedObject>(entityName: "Work")))",
                "\(try context.objects("Imprint", sortedBy: "name").map { try $0.value(forKey: "name") as? String ?? "" })",
                "\(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")))",
                "\(context.persistentStoreCoordinator!.managedObjectModel.entity(named: "Note") == nil)",
            ]
        }
        #expect(report == ["Emma", "474", "4.5", "''", "Jane Austen 1775", "Emma,Persuasion", "3", "[\"Penguin\"]", "0", "true"])
    }

    @Test func migrationOnOpenThroughTheContainer() async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.store")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        _ = try await Self.versionOneStore(at: url, bundle: bundle)

        let container = PersistentContainer(name: "Library", managedObjectModel: bundle.currentVersion.model)
        let description = PersistentStoreDescription(type: .binary, url: url)
        description.migrates(through: MigrationPlan(bundle: bundle))
        container.persistentStoreDescriptions = [description]
        try await container.loadPersistentStores()
        let titles = try await container.viewContext.perform { context in
            try context.objects("Book", sortedBy: "title").map { try $0.value(forKey: "title") as? String ?? "" }
        }
        #expect(titles == ["Emma", "Middlemarch", "Persuasion"])

        // With the automatic options off, a store from an older version is refused, and left as it was.
        let plain = PersistentContainer(name: "Library", managedObjectModel: bundle.currentVersion.model)
        let other = directory.appendingPathComponent("Other.store")
        _ = try await Self.versionOneStore(at: other, bundle: bundle)
        let before = try Data(contentsOf: other)
        let off = PersistentStoreDescription(type: .binary, url: other)
        off.shouldMigrateStoreAutomatically = false
        plain.persistentStoreDescriptions = [off]
        let error = await #expect(throws: PersistenceError.self) { try await plain.loadPersistentStores() }
        #expect(error?.code == .incompatibleStore)
        #expect(try Data(contentsOf: other) == before)

        // Without a migrator, Core Data's two options alone (on by default in a description) migrate it.
        let defaults = PersistentContainer(name: "Library", managedObjectModel: bundle.currentVersion.model)
        defaults.persistentStoreDescriptions = [PersistentStoreDescription(type: .binary, url: other)]
        try await defaults.loadPersistentStores()
        let migrated = try await defaults.viewContext.perform { context in
            try context.objects("Book", sortedBy: "title").map { try $0.value(forKey: "title") as? String ?? "" }
        }
        #expect(migrated == titles)
    }

    @Test func aNewerStoreIsRefusedNeverFixed() async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.store")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        try await MigrationFixtures.withStore(at: url, model: bundle.currentVersion.model) { context in
            try context.insertNewObject(forEntityName: "Tag").setValue("new", forKey: "label")
        }
        let older = try ModelBundle(name: "Library", versions: bundle.versions.prefix(3).map { ($0.name, $0.model) })
        let before = try Data(contentsOf: url)
        let error = await #expect(throws: MigrationError.self) { try await MigrationPlan(bundle: older).migrateStore(at: url) }
        #expect(error?.code == .unknownSourceVersion)
        #expect(error?.message.contains("newer than any this program knows") == true)
        #expect(try Data(contentsOf: url) == before)
    }
}

/// Progress events, collected from any thread.
final class ProgressLog: Sendable {
    private let events = Mutex<[MigrationProgress]>([])
    func add(_ event: MigrationProgress) { events.withLock { $0.append(event) } }
    var stages: [String] {
        events.withLock { events in events.map(\.stage).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } } }
    }
    var last: MigrationProgress? { events.withLock { $0.last } }
}
