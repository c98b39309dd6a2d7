import BenchSQLite
import Foundation

/// The Library workloads through SQLite's C API by hand, on ``LibraryGRDBPeer``'s files: a join
/// per page, one join ordered by author for the walk, prepared statements for the changes.
public enum LibrarySQLiteCPeer {
    /// Workload L1: the pages of books sorted by title, each joined with its author.
    public static func readPages(_ connection: SQLiteCPeer.Connection) throws -> LibraryData.PageSummary {
        let count = try connection.prepare("SELECT count(*) FROM book")
        let page = try connection.prepare(
            "SELECT book.pages, author.name FROM book JOIN author ON author.id = book.authorID ORDER BY book.title LIMIT ? OFFSET ?")
        defer {
            sqlite3_finalize(count)
            sqlite3_finalize(page)
        }
        guard sqlite3_step(count) == SQLITE_ROW else { throw SQLiteCPeer.PeerError.sqlite(String(cString: sqlite3_errmsg(connection.handle))) }
        var summary = LibraryData.PageSummary()
        for offset in LibraryData.pageOffsets(bookCount: Int(sqlite3_column_int64(count, 0))) {
            sqlite3_bind_int64(page, 1, Int64(LibraryData.pageSize))
            sqlite3_bind_int64(page, 2, Int64(offset))
            while sqlite3_step(page) == SQLITE_ROW {
                summary.add(pages: Int(sqlite3_column_int64(page, 0)), authorName: SQLiteCPeer.text(page, 1))
            }
            sqlite3_reset(page)
        }
        return summary
    }

    /// Workload L2: every author with their books, in one join ordered by author, each author
    /// and book decoded.
    public static func walkAuthors(_ connection: SQLiteCPeer.Connection) throws -> Int {
        let statement = try connection.prepare(
            """
            SELECT author.id, author.name, book.id, book.title, book.pages, book.published, book.megabytes
            FROM author JOIN book ON book.authorID = author.id ORDER BY author.id
            """)
        defer { sqlite3_finalize(statement) }
        var pages = 0
        var author: LibraryData.Author?
        var books: [LibraryData.Book] = []
        func finish() {
            for book in books { pages &+= book.pages }
            books.removeAll(keepingCapacity: true)
        }
        while sqlite3_step(statement) == SQLITE_ROW {
            let authorID = Int(sqlite3_column_int64(statement, 0))
            if author?.id != authorID {
                finish()
                author = LibraryData.Author(id: authorID, name: SQLiteCPeer.text(statement, 1))
            }
            books.append(
                LibraryData.Book(
                    id: Int(sqlite3_column_int64(statement, 2)), title: SQLiteCPeer.text(statement, 3),
                    pages: Int(sqlite3_column_int64(statement, 4)),
                    published: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 5)), authorID: authorID, tagIDs: [],
                    megabytes: sqlite3_column_type(statement, 6) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 6)))
        }
        finish()
        return pages
    }

    /// Workload L3: the books under the page bound get a new title, one statement per book,
    /// in one transaction.
    public static func changeOnePercent(_ connection: SQLiteCPeer.Connection) throws -> Int {
        let select = try connection.prepare("SELECT id, title FROM book WHERE pages < ?")
        let update = try connection.prepare("UPDATE book SET title = ? WHERE id = ?")
        defer {
            sqlite3_finalize(select)
            sqlite3_finalize(update)
        }
        return try connection.transaction {
            var changes: [(Int64, String)] = []
            sqlite3_bind_int64(select, 1, Int64(LibraryData.changedPagesBound))
            while sqlite3_step(select) == SQLITE_ROW {
                changes.append((sqlite3_column_int64(select, 0), LibraryData.changedTitle(SQLiteCPeer.text(select, 1))))
            }
            for (id, title) in changes {
                SQLiteCPeer.bind(title, to: update, at: 1)
                sqlite3_bind_int64(update, 2, id)
                guard sqlite3_step(update) == SQLITE_DONE else { throw SQLiteCPeer.PeerError.sqlite(String(cString: sqlite3_errmsg(connection.handle))) }
                sqlite3_reset(update)
            }
            return changes.count
        }
    }
}
