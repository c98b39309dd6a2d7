import Foundation
import Strata

public final class LibraryAuthor: ManagedObject {
    @Attribute public var name: String
    @Relationship public var books: Set<LibraryBook>
}

public class LibraryBook: ManagedObject {
    @Attribute public var title: String
    @Attribute public var pages: Int
    @Attribute public var published: Date
    @Relationship public var author: LibraryAuthor?
    @Relationship public var tags: Set<LibraryTag>
}

public final class LibraryEbook: LibraryBook {
    @Attribute public var megabytes: Double
}

public final class LibraryTag: ManagedObject {
    @Attribute public var name: String
    @Relationship public var books: Set<LibraryBook>
}

/// Strata's side of the Library workloads, written as a Core Data user writes them: a
/// prefetching sorted fetch, to-many faults fired one author at a time, a fetch, changes and a
/// save. On the binary store, the SQLite store (a `.sqlite` URL) or the PostgreSQL store.
public enum LibraryStrataPeer {
    public static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel {
                EntityDescription("Author", class: LibraryAuthor.self) {
                    AttributeDescription("name", .string)
                    RelationshipDescription("books", toMany: "Book", inverse: "author")
                }
                EntityDescription("Book", class: LibraryBook.self) {
                    AttributeDescription("title", .string)
                    AttributeDescription("pages", .integer32)
                    AttributeDescription("published", .date)
                    RelationshipDescription("author", toOne: "Author", inverse: "books")
                    RelationshipDescription("tags", toMany: "Tag", inverse: "books")
                    FetchIndexDescription("byTitle", "title")
                }
                EntityDescription("Ebook", class: LibraryEbook.self, superentity: "Book") {
                    AttributeDescription("megabytes", .double)
                }
                EntityDescription("Tag", class: LibraryTag.self) {
                    AttributeDescription("name", .string)
                    RelationshipDescription("books", toMany: "Book", inverse: "tags")
                }
            }
        } catch {
            fatalError("The Library model is invalid: \(error)")
        }
    }()

    public static func open(_ url: URL) async throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: StrataPeer.storeType(of: url), at: url, options: StrataPeer.storeOptions(of: url))
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    /// Inserts the whole data set into `context` and saves it.
    public static func insert(_ data: LibraryData, into context: ManagedObjectContext) async throws {
        try await context.perform { context in
            let tags = try data.tags.map { record in
                let tag = try LibraryTag(context: context)
                tag.name = record.name
                return tag
            }
            let authors = try data.authors.map { record in
                let author = try LibraryAuthor(context: context)
                author.name = record.name
                return author
            }
            for record in data.books {
                let book: LibraryBook
                if let megabytes = record.megabytes {
                    let ebook = try LibraryEbook(context: context)
                    ebook.megabytes = megabytes
                    book = ebook
                } else {
                    book = try LibraryBook(context: context)
                }
                book.title = record.title
                book.pages = record.pages
                book.published = record.published
                book.author = authors[record.authorID]
                book.tags = Set(record.tagIDs.map { tags[$0] })
            }
            try context.save()
        }
    }

    /// Workload L1: ``LibraryData/pageCount`` pages of books sorted by title, their authors
    /// prefetched, reading each book's pages and its author's name.
    public static func readPages(_ context: ManagedObjectContext) async throws -> LibraryData.PageSummary {
        try await context.perform { context in
            let bookCount = try context.count(for: FetchRequest<LibraryBook>(entityName: "Book"))
            var summary = LibraryData.PageSummary()
            for offset in LibraryData.pageOffsets(bookCount: bookCount) {
                var request = FetchRequest<LibraryBook>(entityName: "Book", sortDescriptors: [.ascending("title")])
                request.fetchOffset = offset
                request.fetchLimit = LibraryData.pageSize
                request.relationshipKeyPathsForPrefetching = ["author"]
                for book in try context.fetch(request) {
                    summary.add(pages: book.pages, authorName: book.author?.name ?? "")
                }
            }
            return summary
        }
    }

    /// Workload L2: every author, and through the to-many fault of each, their books' pages.
    public static func walkAuthors(_ context: ManagedObjectContext) async throws -> Int {
        try await context.perform { context in
            var pages = 0
            for author in try context.fetch(FetchRequest<LibraryAuthor>(entityName: "Author")) {
                for book in author.books { pages &+= book.pages }
            }
            return pages
        }
    }

    /// Workload L3: the books with fewer than ``LibraryData/changedPagesBound`` pages (1%) get
    /// a new title, and the context saves.
    public static func changeOnePercent(_ context: ManagedObjectContext) async throws -> Int {
        try await context.perform { context in
            let predicate = try FetchPredicate(format: "pages < %d", LibraryData.changedPagesBound)
            let books = try context.fetch(FetchRequest<LibraryBook>(entityName: "Book", predicate: predicate))
            for book in books { book.title = LibraryData.changedTitle(book.title) }
            try context.save()
            return books.count
        }
    }

    /// A store of the data set of `objects` objects, made once per size: binary, or SQLite.
    public static func fixture(objects: Int, sqlite: Bool = false) async throws -> URL {
        try await Fixtures.file(sqlite ? "library-strata.sqlite" : "library.strata", count: objects) { url in
            try await insert(LibraryData.generate(objects: objects), into: open(url))
            if sqlite { try SQLiteCPeer.Connection(url).execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }

    /// A PostgreSQL store of the data set, made once per size.
    public static func postgresFixture(objects: Int) async throws -> URL {
        guard let server = PostgresNIOPeer.serverURL, let url = URL(string: server + "?schema=bench_library_fixture_\(objects)") else {
            throw PersistenceError(.storeNotFound, "no STRATA_POSTGRES_URL")
        }
        let context = try await open(url)
        let stored = try await context.perform { try $0.count(for: FetchRequest<LibraryTag>(entityName: "Tag")) }
        if stored == 0 { try await insert(LibraryData.generate(objects: objects), into: context) }
        return url
    }
}
