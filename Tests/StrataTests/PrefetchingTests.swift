import Foundation
import Strata
import Testing

/// Core Data's `relationshipKeyPathsForPrefetching` (issue 30, item 3): the objects the key
/// paths reach come with the fetch — registered in the context, holding their values as the
/// fetch read them (they fire from those, as any fetched fault at the default
/// `stalenessInterval`), so that walking the relationships asks the store nothing more.
@Suite struct PrefetchingTests {
    /// Two authors with two books each; every book has a chapter and the tag "shelf".
    static func library(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let shelf = try Tag(context: context)
            shelf.label = "shelf"
            for name in ["Ann", "Bo"] {
                let author = try Author(context: context)
                author.name = name
                for number in 1...2 {
                    let book = try Book(context: context)
                    book.title = "\(name) \(number)"
                    book.author = author
                    book.tags = [shelf]
                    let chapter = try Chapter(context: context)
                    chapter.title = "one of \(book.title)"
                    chapter.book = book
                }
            }
            try context.save()
        }
        return coordinator
    }

    /// Renames every chapter and tag and retitles every book, in a context of its own.
    static func changeEverything(_ coordinator: PersistentStoreCoordinator) async throws {
        try await backgroundContext(coordinator).perform { context in
            for chapter in try context.fetch(FetchRequest<Chapter>()) { chapter.title = "changed" }
            for tag in try context.fetch(FetchRequest<Tag>()) { tag.label = "changed" }
            for book in try context.fetch(FetchRequest<Book>()) { book.title = "changed" }
            try context.save()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func prefetchedObjectsComeWithTheFetchAndHoldItsValues(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        let context = backgroundContext(coordinator)
        let registered = try await context.perform { context in
            var request = FetchRequest<Author>(sortDescriptors: [.ascending("name")])
            request.relationshipKeyPathsForPrefetching = ["books.chapters", "books.tags"]
            let authors = try context.fetch(request)
            #expect(authors.count == 2)
            return context.registeredObjects.map(\.entity.name).sorted()
        }
        #expect(registered == ["Author", "Author", "Book", "Book", "Book", "Book", "Chapter", "Chapter", "Chapter", "Chapter", "Tag"])
        try await Self.changeEverything(coordinator)
        try await context.perform { context in
            for author in try context.fetch(FetchRequest<Author>()) {
                for book in author.books {
                    #expect(book.title.hasPrefix(author.name), "the book as the prefetching fetch read it")
                    #expect(book.chapters.map(\.title) == ["one of \(book.title)"])
                    #expect(book.tags.map(\.label) == ["shelf"])
                }
            }
        }
    }

    @Test func withoutPrefetchingOnlyTheFetchedObjectsAreRegistered() async throws {
        let coordinator = try await Self.library(.sqlite)
        try await backgroundContext(coordinator).perform { context in
            _ = try context.fetch(FetchRequest<Author>())
            #expect(context.registeredObjects.allSatisfy { $0.entity.name == "Author" })
        }
    }

    @Test func aKeyThatIsNotARelationshipIsRefused() async throws {
        let coordinator = try await Self.library(.inMemory)
        try await backgroundContext(coordinator).perform { context in
            for keyPath in ["name", "books.title", "books.nothing", "books..tags"] {
                var request = FetchRequest<Author>()
                request.relationshipKeyPathsForPrefetching = [keyPath]
                let error = #expect(throws: PersistenceError.self) { try context.fetch(request) }
                #expect(error?.code == .unsupportedRequest, "\(keyPath)")
            }
        }
    }

    /// Many objects are read a chunk at a time, each chunk of one of a few lengths (padded with
    /// its last reference), the smallest that holds it: nothing left out, nothing read twice.
    @Test func referencesAreChunkedWhole() {
        #expect(ReferenceChunks.padded([]).isEmpty)
        for count in [1, 8, 9, 19, 33, ReferenceChunks.size, ReferenceChunks.size + 1, 2 * ReferenceChunks.size + 37] {
            let references = (1...Int64(count)).map { $0 * 3 }
            let chunks = ReferenceChunks.padded(references)
            #expect(chunks.count == (count + ReferenceChunks.size - 1) / ReferenceChunks.size)
            #expect(chunks.dropLast().allSatisfy { $0.count == ReferenceChunks.size })
            let rest = count - (chunks.count - 1) * ReferenceChunks.size
            #expect(chunks.last?.count == ReferenceChunks.lengths.first { $0 >= rest }, "\(count)")
            #expect(Set(chunks.joined()) == Set(references.map(SQLValue.integer)), "\(count)")
            #expect(Set(chunks.dropLast().joined()).isDisjoint(with: Set(chunks.last ?? [])), "\(count)")
        }
    }

    /// More books than one chunk holds, prefetched through their author on the SQL stores.
    @Test(arguments: StoreKind.queryable)
    func manyPrefetchedObjectsComeInChunks(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let count = ReferenceChunks.size * 2 + 13
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Prolific"
            for number in 0..<count {
                let book = try Book(context: context)
                book.title = "Book \(number)"
                book.author = author
            }
            try context.save()
        }
        let books = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Author>()
            request.relationshipKeyPathsForPrefetching = ["books"]
            _ = try context.fetch(request)
            return context.registeredObjects.filter { $0.entity.name == "Book" }.count
        }
        #expect(books == count)
    }
}
