import Foundation
@testable import Strata
import Testing

/// Derived attributes (Core Data's `NSDerivedAttributeDescription`; issue 28, class 6): computed
/// when a context saves, on every store type — a copy of an attribute, `lowercase:`,
/// `uppercase:`, `canonical:`, a to-one key path, a to-many's `@count` and `@sum`, `now()` — and
/// kept so that fetches and predicates see them. On SQLite a count is kept by the triggers Core
/// Data writes (`formats/coredata-sqlite-schema.md` §7), so an app's Core Data keeps it too.
@Suite struct DerivedAttributeTests {
    static func model() throws -> ManagedObjectModel {
        func derived(_ name: String, _ type: AttributeType, _ expression: String) -> AttributeDescription {
            var attribute = AttributeDescription(name: name, type: type, isOptional: true)
            attribute.derivationExpression = expression
            return attribute
        }
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Author", attributes: [AttributeDescription(name: "name", type: .string, isOptional: true)],
                relationships: [RelationshipDescription(name: "books", destination: "Book", inverse: "author", isToMany: true)]),
            EntityDescription(
                name: "Book",
                attributes: [
                    AttributeDescription(name: "title", type: .string, isOptional: true),
                    derived("titleCopy", .string, "title"), derived("lowerTitle", .string, "lowercase:(title)"),
                    derived("upperTitle", .string, "uppercase:(title)"), derived("searchTitle", .string, "canonical:(title)"),
                    derived("authorName", .string, "author.name"), derived("pagesCount", .integer32, "pages.@count"),
                    derived("words", .integer64, "pages.@sum.words"), derived("saved", .date, "now()"),
                ],
                relationships: [
                    RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
                    RelationshipDescription(name: "pages", destination: "Page", inverse: "book", isToMany: true, deleteRule: .cascade),
                ]),
            EntityDescription(
                name: "Page", attributes: [AttributeDescription(name: "words", type: .integer64, isOptional: true)],
                relationships: [RelationshipDescription(name: "book", destination: "Book", inverse: "pages")]),
        ])
    }

    struct Derived: Sendable, Equatable {
        var titleCopy, lowerTitle, upperTitle, searchTitle, authorName: String?
        var pagesCount: Int32?
        var words: Int64?
    }

    static func derived(of book: ManagedObject) throws -> Derived {
        Derived(
            titleCopy: try book.value(forKey: "titleCopy") as? String, lowerTitle: try book.value(forKey: "lowerTitle") as? String,
            upperTitle: try book.value(forKey: "upperTitle") as? String, searchTitle: try book.value(forKey: "searchTitle") as? String,
            authorName: try book.value(forKey: "authorName") as? String, pagesCount: try book.value(forKey: "pagesCount") as? Int32,
            words: try book.value(forKey: "words") as? Int64)
    }

    @Test(arguments: StoreKind.allCases)
    func derivedValuesFollowEveryChangeOnEveryStoreType(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: try Self.model())
        defer { store.remove() }
        let before = Date()
        let id = try await store.withContext { context in
            let author = try context.insertNewObject(forEntityName: "Author")
            try author.setValue("Jane Austen", forKey: "name")
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Émile et Café", forKey: "title")
            try book.setValue(author, forKey: "author")
            for words in [100, 250] as [Int64] {
                let page = try context.insertNewObject(forEntityName: "Page")
                try page.setValue(words, forKey: "words")
                try page.setValue(book, forKey: "book")
            }
            try context.save()
            return book.objectID
        }
        // Read back from the store, as saved.
        let first = try await store.withContext { context in
            let book = try context.existingObject(with: id)
            return (try Self.derived(of: book), try book.value(forKey: "saved") as? Date)
        }
        #expect(first.0 == Derived(
            titleCopy: "Émile et Café", lowerTitle: "émile et café", upperTitle: "ÉMILE ET CAFÉ", searchTitle: "emile et cafe",
            authorName: "Jane Austen", pagesCount: 2, words: 350))
        #expect((first.1 ?? .distantPast) >= before.addingTimeInterval(-1), "now() is the time of the save")

        // Changes of related objects reach the derived values: a page's words, a new page, a
        // deleted page, the author's name.
        try await store.withContext { context in
            let book = try context.existingObject(with: id)
            let pages = try #require(try book.value(forKey: "pages") as? Set<ManagedObject>)
            let sorted = try pages.sorted { (try $0.value(forKey: "words") as? Int64 ?? 0) < (try $1.value(forKey: "words") as? Int64 ?? 0) }
            try sorted[0].setValue(Int64(10), forKey: "words")
            context.delete(sorted[1])
            let page = try context.insertNewObject(forEntityName: "Page")
            try page.setValue(Int64(5), forKey: "words")
            try page.setValue(book, forKey: "book")
            let author = try #require(try book.value(forKey: "author") as? ManagedObject)
            try author.setValue("J. Austen", forKey: "name")
            try context.save()
        }
        let second = try await store.withContext { context in try Self.derived(of: context.existingObject(with: id)) }
        #expect(second.pagesCount == 2 && second.words == 15 && second.authorName == "J. Austen", "\(kind): \(second)")

        // Predicates see derived values, in SQL where the store runs them.
        let found = try await store.withContext { context in
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "pagesCount == 2 AND searchTitle BEGINSWITH 'emile'")
            return try context.count(for: request)
        }
        #expect(found == 1)
    }

    /// A count Strata keeps on SQLite is kept by Core Data's triggers, so another writer — an
    /// app's Core Data, which writes no derived column itself — keeps it too.
    @Test func aSQLiteCountIsKeptByCoreDatasTriggersForOtherWriters() async throws {
        let store = try await StoreUnderTest(.sqlite, model: try Self.model())
        defer { store.remove() }
        let key = try await store.withContext { context in
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Emma", forKey: "title")
            try context.save()
            return book.objectID.referenceNumber ?? 0
        }
        let connection = try SQLiteConnection(url: store.url, readOnly: false, create: false, busyTimeout: .seconds(5))
        var triggers: [String] = []
        try connection.statement("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").forEachRow { row in
            if case .text(let name) = row.value(0) { triggers.append(name) }
        }
        #expect(triggers == [
            "Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT", "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_DELETE",
            "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT", "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_DECREMENT",
            "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_INCREMENT",
        ])
        // What Core Data's save does: rows without the derived column; its functions, which the
        // triggers call, registered.
        try connection.registerNoOpFunction(named: "NSCoreDataDATriggerUpdatedAffectedObjectValue")
        try connection.registerNoOpFunction(named: "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue")
        try connection.execute("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZBOOK, ZWORDS) VALUES (900, 3, 1, \(key), 7)")
        try connection.execute("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZBOOK, ZWORDS) VALUES (901, 3, 1, \(key), 8)")
        try connection.execute("DELETE FROM ZPAGE WHERE Z_PK = 900")
        #expect(try connection.scalar("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = \(key)") == .integer(1))
    }
}
