import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// A large fetch on the SQL stores reads its rows into columns past the first
/// ``ColumnReads/rowsBeforeColumns`` (``ColumnReadingStore``), and its objects read their values there until
/// they need a row of their own: everything a fetched object is read, changed, saved and
/// rolled back as is the same for an object read into columns as for one read into a row.
@Suite struct SQLColumnReadTests {
    static let count = 100
    static let stores: [StoreKind] = [.sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    /// A store of `count` books, "Book 000"…, each with an author (every tenth book none), a
    /// tag per book (shared by five books), one chapter, and pages equal to its number.
    static func savedLibrary(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let authors = try (0..<10).map { index in
                let author = try Author(context: context)
                author.name = "Author \(index)"
                author.born = index.isMultiple(of: 2) ? Date(timeIntervalSinceReferenceDate: Double(index) * 86_400) : nil
                return author
            }
            let tags = try (0..<(count / 5)).map { index in
                let tag = try Tag(context: context)
                tag.label = "tag \(index)"
                return tag
            }
            for index in 0..<count {
                let book = try Book(context: context)
                book.title = String(format: "Book %03d", index)
                book.pages = index
                book.author = index.isMultiple(of: 10) ? nil : authors[index % 10]
                book.tags = [tags[index / 5]]
                let chapter = try Chapter(context: context)
                chapter.title = "Chapter of \(index)"
                book.chapters = [chapter]
            }
            try context.save()
        }
        return coordinator
    }

    static let byTitle = [FetchSortDescriptor(key: "title")]

    @Test(arguments: stores)
    func everyValueOfAFetchReadIntoColumnsIsTheOneSaved(_ kind: StoreKind) async throws {
        let coordinator = try await Self.savedLibrary(kind)
        let threshold = ColumnReads.rowsBeforeColumns
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(FetchRequest<Book>(sortDescriptors: Self.byTitle))
            #expect(books.count == Self.count)
            let fromColumns = books.map(\.readsFromColumns)
            #expect(fromColumns == (0..<Self.count).map { $0 >= threshold }, "past the first rows, read into columns")
            for (index, book) in books.enumerated() {
                #expect(book.title == String(format: "Book %03d", index))
                #expect(book.pages == index)
                #expect(book.author?.name == (index.isMultiple(of: 10) ? nil : "Author \(index % 10)"))
                let born = (index % 10).isMultiple(of: 2) && !index.isMultiple(of: 10)
                    ? Date(timeIntervalSinceReferenceDate: Double(index % 10) * 86_400) : nil
                #expect(book.author?.born == born)
                #expect(book.tags.map(\.label) == ["tag \(index / 5)"])
                #expect(book.chapters.map(\.title) == ["Chapter of \(index)"])
                #expect(!book.hasChanges)
            }
        }
    }

    @Test(arguments: stores)
    func aChangeToAnObjectReadIntoColumnsIsSavedAndRolledBack(_ kind: StoreKind) async throws {
        let coordinator = try await Self.savedLibrary(kind)
        let last = Self.count - 1
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(FetchRequest<Book>(sortDescriptors: Self.byTitle))
            let book = books[last]
            #expect(book.readsFromColumns)
            book.title = "Renamed"
            #expect(book.isUpdated && Set(book.changedValues().keys) == ["title"])
            #expect(book.committedValues(forKeys: ["title"])["title"] as? String == String(format: "Book %03d", last))
            let other = try #require(books.first { $0.tags.first?.label == "tag 0" })
            book.tags.insert(try #require(other.tags.first))
            try context.save()

            books[last - 1].pages = 1_000
            context.rollback()
            #expect(books[last - 1].pages == last - 1 && !context.hasChanges)
        }
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(FetchRequest<Book>(sortDescriptors: Self.byTitle))
            let renamed = try #require(books.last)
            #expect(renamed.title == "Renamed")
            #expect(Set(renamed.tags.map(\.label)) == ["tag 0", "tag \(last / 5)"], "the stored tag kept, the new one added")
            #expect(books.dropLast().map(\.title) == (0..<last).map { String(format: "Book %03d", $0) })
            #expect(books[last - 1].pages == last - 1)
        }
    }
}
