import Foundation
@testable import Strata
import Testing

/// Fetches on a SQLite store run their predicate in SQL as far as it translates: the context
/// then considers only the rows the query returns. What does not translate is evaluated on
/// those rows, and the answer is the same either way.
@Suite struct SQLiteFetchTests {
    /// 200 books by 4 authors, with 1 to 200 pages.
    static func store() async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        try await backgroundContext(coordinator).perform { context in
            let authors = try ["Jane Austen", "George Eliot", "E\u{301}mile Zola", "Mary Shelley"].map { name in
                let author = try Author(context: context)
                author.name = name
                return author
            }
            for number in 1...200 {
                let book = try Book(context: context)
                book.title = "Book \(number)"
                book.pages = number
                book.author = number % 10 == 0 ? nil : authors[number % 4]
            }
            try context.save()
        }
        return coordinator
    }

    /// The titles a predicate fetches, and how many rows the context considered for it.
    static func fetch(_ format: String, in coordinator: PersistentStoreCoordinator) async throws -> (titles: Set<String>, considered: Int) {
        try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.predicate = try FetchPredicate(format: format)
            let titles = Set(try context.fetch(request).map(\.title))
            return (titles, context.graph.rowsConsidered)
        }
    }

    @Test(arguments: [
        ("pages <= 10", 10), ("pages BETWEEN {50, 59}", 10), ("pages IN {1, 2, 3}", 3), ("title == 'Book 7'", 1),
        ("title BEGINSWITH 'Book 19'", 11), ("author == nil", 20), ("author.name == 'Jane Austen'", 40),
        ("author.name BEGINSWITH[cd] 'emile'", 40), ("NOT (pages > 5) AND title ENDSWITH '3'", 1), ("pages < 3 OR pages > 198", 4),
    ])
    func translatedPredicatesReadOnlyTheRowsTheyMatch(_ format: String, _ count: Int) async throws {
        let coordinator = try await Self.store()
        let (titles, considered) = try await Self.fetch(format, in: coordinator)
        #expect(titles.count == count, "\(format)")
        #expect(considered == count, "\(format): the query returned only the matching rows")
    }

    /// To-many key paths and counts run as subqueries: only the matching authors are read.
    @Test(arguments: [
        ("ANY books.pages > 198", ["Mary Shelley"]), ("books.@count > 45", ["George Eliot", "Mary Shelley"]),
        ("SUBQUERY(books, $b, $b.pages > 190 AND $b.title ENDSWITH '1').@count > 0", ["Mary Shelley"]),
        ("ALL books.pages > 2", ["Jane Austen", "Mary Shelley"]), ("NONE books.title == 'Book 3'", ["E\u{301}mile Zola", "George Eliot", "Jane Austen"]),
        ("books.@sum.pages > 4950", ["Mary Shelley"]), ("books.@avg.pages == 100", ["E\u{301}mile Zola", "Jane Austen"]),
        ("books.@min.pages <= 2", ["E\u{301}mile Zola", "George Eliot"]), ("books.@max.title == 'Book 99'", ["Mary Shelley"]),
    ])
    func toManyKeyPathsRunAsSubqueries(_ format: String, _ names: [String]) async throws {
        let coordinator = try await Self.store()
        let (found, considered) = try await backgroundContext(coordinator).perform { context in
            let authors = try context.fetch(FetchRequest<Author>(predicate: try FetchPredicate(format: format))).map(\.name).sorted()
            return (authors, context.graph.rowsConsidered)
        }
        #expect(Set(found) == Set(names), "\(format)")
        #expect(considered == names.count, "\(format)")
    }

    @Test func whatDoesNotTranslateIsEvaluatedOnTheRowsTheRestReturns() async throws {
        let coordinator = try await Self.store()
        // Arithmetic does not translate; the page range does, and narrows what is read.
        let mixed = try await Self.fetch("pages <= 40 AND author.books.@count + 0 > 45", in: coordinator)
        #expect(mixed.considered == 40)
        let mixedNumbers: [Int] = (1...40).filter { $0 % 10 != 0 && [1, 3].contains($0 % 4) }
        #expect(mixed.titles == Set(mixedNumbers.map { "Book \($0)" }))
        // Nothing translates: every row is read, and the answer is still right.
        let untranslated = try await Self.fetch("SUBQUERY(author.books, $b, $b.pages + 0 > 195).@count > 0", in: coordinator)
        #expect(untranslated.considered == 200)
        let untranslatedNumbers: [Int] = (1...200).filter { $0 % 10 != 0 && [0, 1, 2, 3].contains($0 % 4) }
        #expect(untranslated.titles == Set(untranslatedNumbers.map { "Book \($0)" }))
        // An OR with an untranslatable side cannot narrow: every row is read.
        let either = try await Self.fetch("pages == 1 OR author.books.@count + 0 > 1000", in: coordinator)
        #expect(either.titles == ["Book 1"] && either.considered == 200)
    }

    /// A request the store alone can answer is sorted, windowed and counted in SQL: the context
    /// considers only the rows in the window, and counts without reading any. An unsaved change
    /// of the entity puts the context back in charge, and the answer includes it.
    @Test func sortsWindowsAndCountsRunInSQLWhenTheStoreAloneHoldsTheAnswer() async throws {
        let coordinator = try await Self.store()
        let (titles, considered, count, counted) = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 100"))
            request.sortDescriptors = [.descending("pages")]
            (request.fetchOffset, request.fetchLimit) = (2, 5)
            let titles = try context.fetch(request).map(\.title)
            let considered = context.graph.rowsConsidered
            context.graph.rowsConsidered = 0
            let count = try context.count(for: FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 100")))
            return (titles, considered, count, context.graph.rowsConsidered)
        }
        #expect(titles == ["Book 198", "Book 197", "Book 196", "Book 195", "Book 194"])
        #expect(considered == 5)
        #expect(count == 100 && counted == 0)

        let withUnsaved = try await backgroundContext(coordinator).perform { context in
            let new = try Book(context: context)
            new.title = "New"
            new.pages = 1_000
            var request = FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 100"))
            request.sortDescriptors = [.descending("pages")]
            request.fetchLimit = 2
            return (try context.fetch(request).map(\.title), try context.count(for: FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 100"))))
        }
        #expect(withUnsaved.0 == ["New", "Book 200"])
        #expect(withUnsaved.1 == 101)
    }

    /// Sorting by a key path through a to-one joins in SQL (a nil author first, as in memory);
    /// an unsaved change to an author, not a book, then puts the context in charge, because the
    /// order reads the author's values.
    @Test func sortsThroughToOnesJoinUnlessAnotherEntityHasUnsavedChanges() async throws {
        let coordinator = try await Self.store()
        let (first, considered, renamed) = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 150"))
            request.sortDescriptors = [.ascending("author.name"), .descending("pages")]
            request.fetchLimit = 7
            let first = try context.fetch(request).map(\.title)
            let considered = context.graph.rowsConsidered
            let mary = try #require(try context.fetch(FetchRequest<Author>(predicate: try FetchPredicate(format: "name == 'Mary Shelley'"))).first)
            mary.name = "A Mary"
            return (first, considered, try context.fetch(request).map(\.title))
        }
        // Five books without an author above 150 pages, then Émile Zola's ("E" + accent sorts first).
        #expect(first == ["Book 200", "Book 190", "Book 180", "Book 170", "Book 160", "Book 198", "Book 194"])
        #expect(considered == 7)
        #expect(renamed == ["Book 200", "Book 190", "Book 180", "Book 170", "Book 160", "Book 199", "Book 195"])
    }

    /// A regular expression that does not compile is the same typed error on this store as on
    /// the others, not a database error.
    @Test func aBadPatternIsAPredicateError() async throws {
        let coordinator = try await Self.store()
        let error = await #expect(throws: FetchPredicateError.self) {
            try await backgroundContext(coordinator).perform { context in
                _ = try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "title MATCHES '(' AND pages < 5")))
            }
        }
        #expect(error?.code == .evaluation)
    }

    @Test func aValueIsNeverSplicedIntoTheSQL() async throws {
        let coordinator = try await Self.store()
        let hostile = "x' OR 1=1; DROP TABLE ZBOOK; --"
        let result = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.predicate = try FetchPredicate(format: "title == %@ OR author.name BEGINSWITH %@", hostile, hostile)
            return (try context.fetch(request).count, try context.count(for: FetchRequest<Book>()))
        }
        #expect(result == (0, 200))
    }

    /// Pending changes still count: an unsaved change to a row the SQL would not return, and an
    /// unsaved insert, are found; an unsaved deletion is not.
    @Test func pendingChangesAreMergedWithWhatTheSQLReturns() async throws {
        let coordinator = try await Self.store()
        let titles = try await backgroundContext(coordinator).perform { context in
            var all = FetchRequest<Book>()
            all.predicate = try FetchPredicate(format: "pages IN {150, 151}")
            let books = try context.fetch(all).sorted { $0.pages < $1.pages }
            books[0].pages = 5
            context.delete(books[1])
            let new = try Book(context: context)
            new.title = "New"
            new.pages = 1
            var request = FetchRequest<Book>()
            request.predicate = try FetchPredicate(format: "pages <= 5 OR pages == 151")
            return Set(try context.fetch(request).map(\.title))
        }
        #expect(titles == ["Book 1", "Book 2", "Book 3", "Book 4", "Book 5", "Book 150", "New"])
    }

    /// A fetch reads its rows' to-many links a query per row (few rows), by chunks of their
    /// references (up to `chunkedToManyLimit`), or over the whole relationship (more): the same
    /// links every way, for a relationship kept as a foreign key (an author's books) and one in
    /// a join table (a book's tags).
    @Test func toManyLinksReadAlikeAtEverySize() async throws {
        let authorCount = SQLiteStore.chunkedToManyLimit + 50
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        try await backgroundContext(coordinator).perform { context in
            let tags = try (0..<5).map { number in
                let tag = try Tag(context: context)
                tag.label = "tag \(number)"
                return tag
            }
            for number in 0..<authorCount {
                let author = try Author(context: context)
                author.name = String(format: "Author %05d", number)
                for copy in 0..<(number % 3) {
                    let book = try Book(context: context)
                    book.title = "\(number).\(copy)"
                    book.pages = number
                    book.author = author
                    book.tags = [tags[number % 5], tags[(number + copy + 1) % 5]]
                }
            }
            try context.save()
        }
        for limit in [10, 300, 0] {
            try await backgroundContext(coordinator).perform { context in
                var request = FetchRequest<Author>(sortDescriptors: [.ascending("name")])
                request.fetchLimit = limit
                let authors = try context.fetch(request)
                #expect(authors.count == (limit == 0 ? authorCount : limit))
                for (number, author) in authors.enumerated() {
                    let books = author.books
                    #expect(Set(books.map(\.title)) == Set((0..<(number % 3)).map { "\(number).\($0)" }), "limit \(limit): \(author.name)")
                    for book in books {
                        let copy = Int(book.title.split(separator: ".")[1])!
                        #expect(Set(book.tags.map(\.label)) == ["tag \(number % 5)", "tag \((number + copy + 1) % 5)"], "limit \(limit): \(book.title)")
                    }
                }
            }
        }
    }
}
