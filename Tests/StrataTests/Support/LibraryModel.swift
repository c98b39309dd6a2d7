import DirectoryStore
import Foundation
import JSONLinesStore
import OrderedCollections
import Strata
import StrataPostgres
import StrataTestSupport

final class Author: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("born") var born: Date?
    @Relationship("books") var books: Set<Book>
    @Relationship("passport") var passport: Passport?

    var awakeFromInsertCalls = 0
    override func awakeFromInsert() {
        awakeFromInsertCalls += 1
    }
}

final class Book: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("pages") var pages: Int
    @Relationship("author") var author: Author?
    @Relationship("chapters") var chapters: [Chapter]
    @Relationship("tags") var tags: Set<Tag>
}

final class Chapter: ManagedObject {
    @Attribute("title") var title: String
    @Relationship("book") var book: Book?
}

final class Tag: ManagedObject {
    @Attribute("label") var label: String
    @Relationship("books") var books: Set<Book>
}

final class Passport: ManagedObject {
    @Attribute("number") var number: String
    @Relationship("holder") var holder: Author?
}

/// The library model the tests share: every relationship kind and every delete rule but deny
/// (``denyModel()`` has that one).
func libraryModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        EntityDescription("Author", class: Author.self) {
            AttributeDescription("name", .string)
            AttributeDescription("born", .date, optional: true)
            RelationshipDescription("books", toMany: "Book", inverse: "author", deleteRule: .cascade)
            RelationshipDescription("passport", toOne: "Passport", inverse: "holder", deleteRule: .cascade)
        }
        EntityDescription("Book", class: Book.self) {
            AttributeDescription("title", .string)
            AttributeDescription("pages", .integer32, defaultValue: 0)
            RelationshipDescription("author", toOne: "Author", inverse: "books")
            RelationshipDescription("chapters", toMany: "Chapter", inverse: "book", deleteRule: .cascade, ordered: true)
            RelationshipDescription("tags", toMany: "Tag", inverse: "books")
        }
        EntityDescription("Chapter", class: Chapter.self) {
            AttributeDescription("title", .string)
            RelationshipDescription("book", toOne: "Book", inverse: "chapters")
        }
        EntityDescription("Tag", class: Tag.self) {
            AttributeDescription("label", .string)
            RelationshipDescription("books", toMany: "Book", inverse: "tags", deleteRule: .noAction)
        }
        EntityDescription("Passport", class: Passport.self) {
            AttributeDescription("number", .string)
            RelationshipDescription("holder", toOne: "Author", inverse: "passport")
        }
    }
}

/// A coordinator with one store of `kind` (in memory by default; a file in
/// ``ScratchStores/folder()``; a schema of the PostgreSQL test server).
func makeCoordinator(_ model: ManagedObjectModel, _ kind: StoreKind = .inMemory) async throws -> PersistentStoreCoordinator {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    if kind.isPersistent {
        PostgresStore.register()
        JSONLinesStore.register()
        DirectoryStore.register()
        let url = kind == .postgres
            ? try await PostgresTestServer.newStoreURL() : try ScratchStores.folder().appendingPathComponent("\(UUID().uuidString).\(kind.rawValue)")
        try await coordinator.addPersistentStore(type: kind.type, at: url)
    } else {
        try await coordinator.addPersistentStore(type: .inMemory)
    }
    return coordinator
}

/// Where the tests that run one suite over several store types keep their files: one folder
/// per test process, and the folders of test processes that have ended are removed when the
/// next one starts (a test cannot remove a store its coordinator may still be reading).
enum ScratchStores {
    private static let made: Result<URL, any Error> = Result {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("strata-test-stores")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] {
            guard let pid = Int32(name), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
        let folder = parent.appendingPathComponent("\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func folder() throws -> URL { try made.get() }
}

func backgroundContext(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
    ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
}
