import Foundation
import Strata
import Testing

/// A store's file carries its whole model, so every `strata` command works on a store alone:
/// inheritance, inverses, constraints and indexes included.
@Suite struct SelfDescribingStoreTests {
    /// Ebook is a Book; Author.books points at Book, so the inverse holds only with inheritance.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", toMany: "Book", inverse: "author")
                UniquenessConstraint("name")
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string)
                AttributeDescription("pages", .integer32, optional: true)
                RelationshipDescription("author", toOne: "Author", inverse: "books")
                FetchIndexDescription("byTitle", "title")
            }
            EntityDescription("Ebook", superentity: "Book") {
                AttributeDescription("megabytes", .double, optional: true)
            }
        }
    }

    func store(in directory: URL) async throws -> URL {
        let model = directory.appendingPathComponent("Shelf.xcdatamodel")
        try Self.model().write(toModelAt: model)
        let objects = directory.appendingPathComponent("shelf.jsonl")
        try Data("""
            {"entity": "Author", "id": "a", "values": {"name": "Ursula K. Le Guin"}}
            {"entity": "Book", "id": "b", "values": {"title": "The Dispossessed", "pages": 387}, "relationships": {"author": "a"}}
            {"entity": "Ebook", "id": "e", "values": {"title": "Lavinia", "pages": 279, "megabytes": 1.5}, "relationships": {"author": "a"}}
            """.utf8).write(to: objects)
        let store = directory.appendingPathComponent("Shelf.store")
        let imported = try await StrataTool.run("import", store.path, "--model", model.path, "--from", objects.path)
        #expect(imported.status == 0, "\(imported.errors)")
        try FileManager.default.removeItem(at: model)  // from here on, the store alone
        return store
    }

    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-self-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func everyCommandWorksOnAStoreWithInheritanceAlone() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await store(in: directory).path
        let query = try await StrataTool.run("query", store, "--entity", "Book", "--where", "author.name BEGINSWITH 'Ursula'", "--sort", "pages:desc")
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output.contains("The Dispossessed"))
        #expect(query.output.contains("Lavinia"), "a fetch of Book includes its subentity's objects")
        let ebooks = try await StrataTool.run("query", store, "--entity", "Ebook", "--where", "megabytes > 1")
        #expect(ebooks.status == 0, "\(ebooks.errors)")
        #expect(ebooks.output.contains("Lavinia"))
        for command in [["verify", store], ["inspect", store], ["dump", store]] {
            let result = try await StrataTool.run(command)
            #expect(result.status == 0, "\(command[0]): \(result.errors)")
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: URL(fileURLWithPath: store))
        let cached = try #require(try ManagedObjectModel(cachedInStoreMetadata: metadata))
        #expect(cached.entityVersionHashesByName == (try Self.model().entityVersionHashesByName))
        #expect(cached.entity(named: "Ebook")?.superentityName == "Book")
        #expect(cached.entity(named: "Author")?.uniquenessConstraints == [["name"]])
        #expect(cached.entity(named: "Book")?.indexes.map(\.name) == ["byTitle"])
    }

    @Test func aStoreWrittenBeforeTheModelWasKeptStillOpens() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.store")
        #expect(try await StrataTool.run("import", store.path, "--model", StoreCommandsTests.model, "--from", StoreCommandsTests.objects).status == 0)
        var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: store)
        metadata[PersistentStore.modelCacheKey] = nil
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: .binary, at: store)
        #expect(try ManagedObjectModel(cachedInStoreMetadata: PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: store)) == nil)
        let query = try await StrataTool.run("query", store.path, "--entity", "Book", "--where", "author.name BEGINSWITH 'Jane'")
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output.contains("Emma"))
    }
}
