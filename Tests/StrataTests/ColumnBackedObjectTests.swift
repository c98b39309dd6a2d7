import Foundation
@testable import Strata
import Testing

/// Objects a fetch makes from a table's columns read their values there until they need a row
/// of their own: every way an object's values are read, changed, compared with its snapshot,
/// rolled back and refreshed behaves as for an object that had one from the start.
@Suite struct ColumnBackedObjectTests {
    /// A store with books saved by one context, and a second context that has read nothing.
    static func savedLibrary(_ kind: StoreKind) async throws -> ManagedObjectContext {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Émile Zola"
            for (title, pages) in [("Nana", 474), ("Germinal", 591), ("L'Œuvre", 0)] {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
                book.author = author
            }
            try context.save()
        }
        return backgroundContext(coordinator)
    }

    @Test(arguments: [StoreKind.inMemory, .binary])
    func readingChangingAndRollingBackAFetchedObject(_ kind: StoreKind) async throws {
        let context = try await Self.savedLibrary(kind)
        try await context.perform { context in
            let books = try context.fetch(FetchRequest<Book>(sortDescriptors: [FetchSortDescriptor(key: "title")]))
            #expect(books.map(\.title) == ["Germinal", "L'Œuvre", "Nana"])
            #expect(books.map(\.pages) == [591, 0, 474])
            #expect(books.allSatisfy { !$0.hasChanges && $0.changedValues().isEmpty })
            #expect(books[0].author?.name == "Émile Zola")

            let nana = books[2]
            nana.title = "Nana (1880)"
            #expect(nana.isUpdated && Set(nana.changedValues().keys) == ["title"])
            #expect(nana.committedValues(forKeys: ["title"])["title"] as? String == "Nana")
            nana.title = "Nana"  // back to the stored value: no change left
            #expect(nana.changedValues().isEmpty)

            books[0].pages = 600
            context.rollback()
            #expect(books[0].pages == 591 && !context.hasChanges)
        }
    }

    @Test(arguments: [StoreKind.inMemory, .binary])
    func aSavedChangeIsWhatTheNextContextReads(_ kind: StoreKind) async throws {
        let context = try await Self.savedLibrary(kind)
        try await context.perform { context in
            let books = try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 500")))
            #expect(books.map(\.title) == ["Germinal"])
            books[0].pages = 592
            try context.save()
            #expect(books[0].committedValues(forKeys: ["pages"])["pages"] as? Int32 == 592)
        }
        try await backgroundContext(context.persistentStoreCoordinator!).perform { context in
            let pages = try context.fetch(FetchRequest<Book>()).map(\.pages).sorted()
            #expect(pages == [0, 474, 592])
        }
    }

    @Test func refreshingTurnsAnObjectReadFromColumnsIntoAFaultThatFillsAgain() async throws {
        let context = try await Self.savedLibrary(.binary)
        try await context.perform { context in
            let book = try #require(try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "title == 'Nana'"))).first)
            context.refresh(book, mergeChanges: false)
            #expect(book.isFault)
            #expect(book.pages == 474 && !book.isFault)
        }
    }

    @Test(arguments: [StoreKind.inMemory, .binary])
    func aSavedObjectReadsItsRowInTheNewColumnsAndChangesAsBefore(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let books = try (0..<20).map { index in
                let book = try Book(context: context)
                book.title = "Volume \(index)"
                book.pages = index * 10
                return book
            }
            // Twenty new books in an empty table: the commit builds new columns with them.
            try context.save()
            let readFromColumns = books.filter { $0.readsFromColumns }.count
            #expect(readFromColumns == books.count)
            #expect(books.map(\.title) == (0..<20).map { "Volume \($0)" } && books[7].pages == 70)
            #expect(!context.hasChanges && books[3].changedValues().isEmpty)

            books[3].pages = 31
            #expect(Set(books[3].changedValues().keys) == ["pages"])
            #expect(books[3].committedValues(forKeys: ["pages"])["pages"] as? Int32 == 30)
            context.rollback()
            #expect(books[3].pages == 30)

            books[4].title = "Volume four"
            try context.save()
            #expect(books[4].title == "Volume four" && !books[4].hasChanges)
        }
        try await backgroundContext(coordinator).perform { context in
            let titles = try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "pages == 40"))).map(\.title)
            #expect(titles == ["Volume four"])
        }
    }

    @Test func anObjectWithATransientValueKeepsItsOwnRowAfterASave() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                AttributeDescription("draft", .string, optional: true, transient: true)
            }
        }
        let coordinator = try await makeCoordinator(model, .binary)
        try await backgroundContext(coordinator).perform { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("kept", forKey: "text")
            try note.setValue("not stored", forKey: "draft")
            try context.save()
            #expect(!note.readsFromColumns)
            #expect(try (note.value(forKey: "draft") as? String) == "not stored")
            #expect(try (note.value(forKey: "text") as? String) == "kept")
        }
    }
}
