import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// The objects of a to-many relationship, on the SQL stores, fire 200 at a time: the first of
/// a batch to be used reads the rows of the batch together, where Core Data fires each on its
/// own (its documentation, "Faulting and Uniquing": a relationship fault, once fired, gives
/// faults of the destination objects; each fires when used). What an object reads never
/// differs: the store's values as the context's generation has them, a parent's unsaved
/// changes for a child context.
@Suite struct ToManyFaultBatchTests {
    static let incremental: [StoreKind] = [.sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    /// One author of 400 books (two batches of 200, so that whichever book is used first, its
    /// batch holds 200), `pages` = the book's number.
    static func author(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Prolific"
            for number in 0..<400 {
                let book = try Book(context: context)
                book.title = "Book \(number)"
                book.pages = number
                book.author = author
            }
            try context.save()
        }
        return coordinator
    }

    static func holdingValues(_ books: [Book]) -> Int {
        books.filter { !$0.isFault || $0.cachedAt != 0 }.count
    }

    static func theAuthor(in context: isolated ManagedObjectContext) throws -> Author {
        try #require(try context.fetch(FetchRequest<Author>()).first)
    }

    @Test(arguments: incremental)
    func usingOneObjectReadsItsBatch(_ kind: StoreKind) async throws {
        let coordinator = try await Self.author(kind)
        try await backgroundContext(coordinator).perform { context in
            let books = Array(try Self.theAuthor(in: context).books)
            #expect(books.count == 400)
            #expect(Self.holdingValues(books) == 0, "the relationship gives faults, reading nothing")
            _ = books[0].title
            #expect(Self.holdingValues(books) == 200, "the first used read its batch of 200, and only it")
            #expect(Set(books.map(\.pages)) == Set(0..<400))
            #expect(Set(books.map(\.title)) == Set((0..<400).map { "Book \($0)" }))
            #expect(Self.holdingValues(books) == 400)
        }
    }

    /// An atomic store's objects fire from its tables, one at a time, as before.
    @Test func anAtomicStoresObjectsAreNotBatched() async throws {
        let coordinator = try await Self.author(.binary)
        try await backgroundContext(coordinator).perform { context in
            let books = Array(try Self.theAuthor(in: context).books)
            _ = books[0].title
            #expect(Self.holdingValues(books) == 1)
            #expect(Set(books.map(\.pages)) == Set(0..<400))
        }
    }

    /// A child context reads its parent's unsaved changes, not the store's rows, for the objects
    /// the parent changed; the others of the batch come from the store.
    @Test(arguments: incremental)
    func aChildReadsItsParentsChangesAmongTheBatch(_ kind: StoreKind) async throws {
        let coordinator = try await Self.author(kind)
        let parent = backgroundContext(coordinator)
        try await parent.perform { context in
            let changed = try #require(try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "pages == 7"))).first)
            changed.title = "Changed in the parent"
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try await child.perform { context in
            let books = Array(try Self.theAuthor(in: context).books)
            let titles = Dictionary(uniqueKeysWithValues: books.map { ($0.pages, $0.title) })
            #expect(titles[7] == "Changed in the parent")
            #expect(titles[8] == "Book 8")
            #expect(titles.count == 400)
        }
    }

    /// A book another context deleted after the relationship was read fires as Core Data's
    /// inaccessible faults do (its defaults), and the rest of its batch is read.
    @Test(arguments: incremental)
    func aBookDeletedMeanwhileFiresAsInaccessible(_ kind: StoreKind) async throws {
        let coordinator = try await Self.author(kind)
        let reader = backgroundContext(coordinator)
        let books = try await reader.perform { context in Array(try Self.theAuthor(in: context).books).map(\.objectID) }
        let gone = books[3]
        try await backgroundContext(coordinator).perform { context in
            context.delete(try context.existingObject(with: gone))
            try context.save()
        }
        try await reader.perform { context in
            let objects = try books.map { try #require(context.registeredObject(for: $0) as? Book) }
            _ = objects[0].pages
            #expect(objects[3].title == "", "the deleted book reads as an inaccessible fault")
            #expect(objects.filter { $0.title.hasPrefix("Book ") }.count == 399)
        }
    }
}
