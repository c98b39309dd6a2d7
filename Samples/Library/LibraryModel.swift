import Strata

/// A writer, with the books they wrote.
final class Author: ManagedObject {
    @Attribute var name: String
    @Attribute var born: Int?
    @Relationship var books: Set<Book>
}

/// A book, by one author, on any number of shelves.
final class Book: ManagedObject {
    @Attribute var title: String
    @Attribute var year: Int
    @Attribute var copies: Int
    @Relationship var author: Author?
    @Relationship var shelves: Set<Shelf>
}

/// A named shelf of books.
final class Shelf: ManagedObject {
    @Attribute var name: String
    @Relationship var books: Set<Book>
}

enum LibraryModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Author", class: Author.self) {
                AttributeDescription("name", .string)
                AttributeDescription("born", .integer16, optional: true)
                RelationshipDescription("books", toMany: "Book", inverse: "author", deleteRule: .cascade)
                UniquenessConstraint("name")
            }
            EntityDescription("Book", class: Book.self) {
                AttributeDescription("title", .string)
                AttributeDescription("year", .integer16)
                AttributeDescription("copies", .integer32, defaultValue: 1)
                RelationshipDescription("author", toOne: "Author", inverse: "books")
                RelationshipDescription("shelves", toMany: "Shelf", inverse: "books")
                FetchIndexDescription("byTitle", "title")
            }
            EntityDescription("Shelf", class: Shelf.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("books", toMany: "Book", inverse: "shelves")
            }
        }
    }

    /// The embedded catalogue the demo imports: author, birth year, and their books.
    static let catalogue: [(author: String, born: Int, books: [(String, Int)])] = [
        ("Jane Austen", 1775, [("Sense and Sensibility", 1811), ("Pride and Prejudice", 1813), ("Emma", 1815)]),
        ("George Eliot", 1819, [("Adam Bede", 1859), ("Middlemarch", 1871)]),
        ("Charles Dickens", 1812, [("Oliver Twist", 1838), ("Bleak House", 1853), ("Great Expectations", 1861)]),
        ("Mary Shelley", 1797, [("Frankenstein", 1818), ("The Last Man", 1826)]),
    ]
}
