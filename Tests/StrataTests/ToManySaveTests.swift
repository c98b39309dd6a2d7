import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// A saved object's to-many relationships on the SQL stores, read back by a new coordinator:
/// a many-to-many (a join table) changed to other objects of the same count, to fewer, to
/// more; an ordered to-many reordered; and an object changed elsewhere keeps its links (the
/// save leaves an unchanged relationship's links as stored).
@Suite struct ToManySaveTests {
    static let incremental: [StoreKind] = [.sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    /// The book's tags' labels and chapters' titles, as a new coordinator reads them.
    static func stored(_ store: StoreUnderTest) async throws -> (tags: Set<String>, chapters: [String], title: String) {
        try await store.withContext { context in
            let book = try #require(try context.fetch(FetchRequest<Book>()).first)
            return (Set(book.tags.map(\.label)), book.chapters.map(\.title), book.title)
        }
    }

    static func change(_ store: StoreUnderTest, _ body: @escaping @Sendable (Book, [String: Tag]) throws -> Void) async throws {
        try await store.withContext { context in
            let book = try #require(try context.fetch(FetchRequest<Book>()).first)
            let tags = Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<Tag>()).map { ($0.label, $0) })
            try body(book, tags)
            try context.save()
        }
    }

    /// Retitling a book and saving reads none of its to-many relationships: the save writes
    /// no link of an unchanged one, and validation looks only at what a count or a predicate
    /// could fail (the library's to-manys have neither), so they stay faults: a save that
    /// changes an attribute needs none of them.
    @Test(arguments: incremental)
    func savingAChangedAttributeLeavesToManysUnread(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        try await store.withContext { context in
            let book = try Book(context: context)
            book.title = "First"
            let tag = try Tag(context: context)
            tag.label = "a"
            book.tags = [tag]
            try context.save()
        }
        let unread = try await store.withContext { context in
            let book = try #require(try context.fetch(FetchRequest<Book>()).first)
            book.title = "Second"
            try context.save()
            return try ["tags", "chapters"].map { key in
                guard case .relationship(let index)? = book.layout.slots[key] else { throw PersistenceError(.unknownEntity, key) }
                guard case .unread(let fault) = book.storage.relationships[index] else { return false }
                return fault.targetsIfRead == nil
            }
        }
        #expect(unread == [true, true])
        #expect(try await Self.stored(store) == (["a"], [], "Second"))
    }

    @Test(arguments: incremental)
    func changedRelationshipsAreStoredAndUnchangedOnesKept(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        try await store.withContext { context in
            let tags = try ["a", "b", "c", "d"].map { label in
                let tag = try Tag(context: context)
                tag.label = label
                return tag
            }
            let book = try Book(context: context)
            book.title = "First"
            book.tags = [tags[0], tags[1]]
            book.chapters = try ["one", "two", "three"].map { title in
                let chapter = try Chapter(context: context)
                chapter.title = title
                return chapter
            }
            try context.save()
        }
        #expect(try await Self.stored(store) == (["a", "b"], ["one", "two", "three"], "First"))

        try await Self.change(store) { book, tags in book.tags = [tags["a"]!, tags["c"]!] }  // as many, others
        #expect(try await Self.stored(store).tags == ["a", "c"])
        try await Self.change(store) { book, tags in book.tags = [tags["c"]!] }  // fewer
        #expect(try await Self.stored(store).tags == ["c"])
        try await Self.change(store) { book, tags in book.tags = [tags["b"]!, tags["c"]!, tags["d"]!] }  // more
        #expect(try await Self.stored(store).tags == ["b", "c", "d"])
        try await Self.change(store) { book, _ in book.chapters = Array(book.chapters.reversed()) }  // the same, reordered
        #expect(try await Self.stored(store).chapters == ["three", "two", "one"])
        try await Self.change(store) { book, _ in book.title = "Retitled" }  // no relationship changed
        #expect(try await Self.stored(store) == (["b", "c", "d"], ["three", "two", "one"], "Retitled"))
        // From the other side: a tag leaves the book.
        try await Self.change(store) { book, tags in tags["d"]!.books.remove(book) }
        #expect(try await Self.stored(store).tags == ["b", "c"])
    }
}
