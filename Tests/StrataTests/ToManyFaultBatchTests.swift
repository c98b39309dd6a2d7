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

    /// 40 authors of 6 books each, inserted in order (so their reference numbers follow each
    /// other); book `pages` = author × 10 + book.
    static func shelf(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            for number in 0..<40 {
                let author = try Author(context: context)
                author.name = String(format: "Author %02d", number)
                for index in 0..<6 {
                    let book = try Book(context: context)
                    book.title = "Book \(number)-\(index)"
                    book.pages = number * 10 + index
                    book.author = author
                }
            }
            try context.save()
        }
        return coordinator
    }

    static func bookIDs(of author: Author) throws -> [ManagedObjectID] {
        guard case .relationship(let index)? = author.layout.slots["books"] else { throw PersistenceError(.unknownEntity, "no books") }
        return author.storage.relationships[index].objectIDs
    }

    static func authorsByName(in context: isolated ManagedObjectContext) throws -> [Author] {
        try context.fetch(FetchRequest<Author>(sortDescriptors: [FetchSortDescriptor(key: "name", ascending: true)]))
    }

    /// Walking every author's books reads 200 books a query, not one author's six: the batch of
    /// the first author's books reads, with its own six, the books of the authors that follow
    /// (32 of them and two of the 34th), and keeps their rows in the generation without making
    /// objects for them. What each book reads is the store's.
    @Test(arguments: incremental)
    func aSmallBatchReadsTheNeighboursBooksToo(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        try await backgroundContext(coordinator).perform { context in
            let authors = try Self.authorsByName(in: context)
            let ids = try authors.map(Self.bookIDs(of:))
            let every = ids.flatMap { $0 }
            #expect(every.count == 240)
            #expect(context.graph.generation.notReadYet(every).count == 240, "fetching the authors read no book")
            let first = Array(authors[0].books)
            _ = first[0].title
            // The first author's books hold their rows themselves; the neighbours' are in the generation.
            #expect(Self.holdingValues(first) == 6)
            let unread = Set(context.graph.generation.notReadYet(Array(every.dropFirst(6))))
            #expect(unread.count == 40, "one query read 200 books")
            #expect(unread == Set(ids[33].suffix(4) + ids[34...].flatMap { $0 }), "those of the authors after the first, in order")
            #expect(context.registeredObjects.count == 40 + 6, "no object was made for the neighbours' books")
            for (number, author) in authors.enumerated() {
                #expect(Set(author.books.map(\.pages)) == Set((0..<6).map { number * 10 + $0 }))
                #expect(Set(author.books.map(\.title)) == Set((0..<6).map { "Book \(number)-\($0)" }))
            }
            #expect(context.registeredObjects.count == 40 + 240)
        }
    }

    /// A neighbour's books, their rows read with another author's batch, take those rows when
    /// their author's relationship gives them, as a batch's objects take theirs: faults that
    /// fire from the row read (the row cache, FetchedFaultTests), without asking the store
    /// again. Another context's later save reaches them as it reaches a fetched fault: with
    /// `stalenessInterval = 0`, or when the context refreshes them.
    @Test(arguments: incremental)
    func aNeighboursBooksHoldTheRowsTheBatchRead(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        let reader = backgroundContext(coordinator)
        try await reader.perform { context in
            let authors = try Self.authorsByName(in: context)
            _ = authors[0].books.first?.title
            let second = Array(authors[1].books)
            #expect(second.allSatisfy { $0.isFault })
            #expect(Self.holdingValues(second) == 6, "each holds the row the first author's batch read")
        }
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "pages == 12 OR pages == 13")))
            for book in books { book.title = "Renamed" }
            try context.save()
        }
        try await reader.perform { context in
            let second = Array(try Self.authorsByName(in: context)[1].books).sorted { $0.pages < $1.pages }
            #expect(second.map(\.title) == (0..<6).map { "Book 1-\($0)" }, "fired from the rows read before the save")
            context.refresh(second[3], mergeChanges: false)
            context.stalenessInterval = 0
            #expect(second[3].title == "Renamed", "a refreshed object reads the store")
            #expect(second[2].title == "Book 1-2", "a fired object keeps its values until refreshed")
        }
    }

    /// A child context reads its parent's unsaved change of a neighbour's book, whatever the
    /// batch of another author's books read from the store.
    @Test(arguments: incremental)
    func aChildReadsItsParentsChangeOfANeighboursBook(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        let parent = backgroundContext(coordinator)
        try await parent.perform { context in
            let changed = try #require(try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "pages == 52"))).first)
            changed.title = "Changed in the parent"
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try await child.perform { context in
            let authors = try Self.authorsByName(in: context)
            _ = authors[0].books.first?.title
            let titles = Dictionary(uniqueKeysWithValues: authors[5].books.map { ($0.pages, $0.title) })
            #expect(titles == [50: "Book 5-0", 51: "Book 5-1", 52: "Changed in the parent", 53: "Book 5-3", 54: "Book 5-4", 55: "Book 5-5"])
        }
    }
}
