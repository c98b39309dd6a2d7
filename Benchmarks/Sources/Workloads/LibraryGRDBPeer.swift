import Foundation
import GRDB

/// The Library workloads through GRDB's records and associations, as its documentation
/// teaches them: `belongsTo`/`hasMany` (and `hasMany(through:)` for tags), `including(required:)`
/// for a page of books with their authors, `including(all:)` for authors with their books,
/// records fetched, changed and updated in one write. Dates as `Double`, as ``GRDBPeer``'s.
public enum LibraryGRDBPeer {
    struct Author: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        var id: Int64
        var name: String
    }

    struct Book: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Author.self)
        static let bookTags = hasMany(BookTag.self)
        static let tags = hasMany(Tag.self, through: bookTags, using: BookTag.tag)
        var id: Int64
        var title: String
        var pages: Int
        var published: Double
        var authorID: Int64
        var megabytes: Double?
    }

    struct Tag: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "tag"
        var id: Int64
        var name: String
    }

    struct BookTag: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "bookTag"
        static let tag = belongsTo(Tag.self)
        var bookID: Int64
        var tagID: Int64
    }

    struct BookWithAuthor: Decodable, FetchableRecord {
        var book: Book
        var author: Author
    }

    struct AuthorWithBooks: Decodable, FetchableRecord {
        var author: Author
        var books: [Book]
    }

    /// The schema, shared with ``LibrarySQLiteCPeer``: one table per entity (an ebook is a book
    /// row with a size, as Core Data's single table per hierarchy), a join table for tags, and
    /// the indexes the workloads need (titles, and each foreign key, as GRDB advises).
    static let schema = """
        CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE book (
            id INTEGER PRIMARY KEY, title TEXT NOT NULL, pages INTEGER NOT NULL, published DOUBLE NOT NULL,
            authorID INTEGER NOT NULL REFERENCES author(id), megabytes DOUBLE);
        CREATE INDEX book_title ON book(title);
        CREATE INDEX book_author ON book(authorID);
        CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE bookTag (
            bookID INTEGER NOT NULL REFERENCES book(id), tagID INTEGER NOT NULL REFERENCES tag(id),
            PRIMARY KEY (bookID, tagID)) WITHOUT ROWID;
        CREATE INDEX bookTag_tag ON bookTag(tagID);
        """

    /// A new database at `url` holding `data`, written as records in one transaction.
    public static func create(at url: URL, holding data: LibraryData) throws -> DatabasePool {
        let pool = try DatabasePool(path: url.path)
        try pool.write { db in
            try db.execute(sql: schema)
            for tag in data.tags { try Tag(id: Int64(tag.id), name: tag.name).insert(db) }
            for author in data.authors { try Author(id: Int64(author.id), name: author.name).insert(db) }
            for book in data.books {
                try Book(
                    id: Int64(book.id), title: book.title, pages: book.pages, published: book.published.timeIntervalSinceReferenceDate,
                    authorID: Int64(book.authorID), megabytes: book.megabytes
                ).insert(db)
                for tag in book.tagIDs { try BookTag(bookID: Int64(book.id), tagID: Int64(tag)).insert(db) }
            }
        }
        return pool
    }

    /// Workload L1: the pages of books sorted by title, each with its author.
    public static func readPages(_ pool: DatabasePool) throws -> LibraryData.PageSummary {
        try pool.read { db in
            let bookCount = try Book.fetchCount(db)
            var summary = LibraryData.PageSummary()
            for offset in LibraryData.pageOffsets(bookCount: bookCount) {
                let request = Book.order(Column("title")).including(required: Book.author)
                    .limit(LibraryData.pageSize, offset: offset)
                for row in try BookWithAuthor.fetchAll(db, request) {
                    summary.add(pages: row.book.pages, authorName: row.author.name)
                }
            }
            return summary
        }
    }

    /// Workload L2: every author with their books, the pages summed.
    public static func walkAuthors(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in
            var pages = 0
            for row in try AuthorWithBooks.fetchAll(db, Author.including(all: Author.books)) {
                for book in row.books { pages &+= book.pages }
            }
            return pages
        }
    }

    /// Workload L3: the books under the page bound get a new title, in one write.
    public static func changeOnePercent(_ pool: DatabasePool) throws -> Int {
        try pool.write { db in
            let books = try Book.filter(Column("pages") < LibraryData.changedPagesBound).fetchAll(db)
            for var book in books {
                book.title = LibraryData.changedTitle(book.title)
                try book.update(db)
            }
            return books.count
        }
    }

    /// The database of the data set of `objects` objects, made once per size (the SQLite C
    /// API peer reads and changes copies of it too).
    public static func fixture(objects: Int) async throws -> URL {
        try await Fixtures.file("library.sqlite", count: objects) { url in
            let pool = try create(at: url, holding: LibraryData.generate(objects: objects))
            _ = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try pool.close()
        }
    }
}
