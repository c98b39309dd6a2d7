import Foundation
import PostgresNIO

/// The Library workloads through postgres-nio directly, as a competent user writes them: a
/// join per page, one join ordered by author for the walk, the changed titles written in one
/// `UPDATE … FROM unnest(…)`. The peer of the PostgreSQL store.
public enum LibraryPostgresNIOPeer {
    static var logger: Logger { PostgresNIOPeer.logger }

    /// The schema of the data set of `objects` objects, made once per size and server.
    public static func fixture(objects: Int) async throws -> String {
        let schema = "bench_nio_library_\(objects)"
        let connection = try await PostgresNIOPeer.connect()
        defer { Task { try? await connection.close() } }
        var exists = false
        for try await _ in try await connection.query("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)", logger: logger) { exists = true }
        if !exists { try await create(schema: schema, holding: LibraryData.generate(objects: objects)) }
        return schema
    }

    /// The tables (as ``LibraryGRDBPeer``'s schema), filled 10,000 rows per statement, in one
    /// transaction, then analyzed (workload L0, and the fixtures).
    public static func create(schema: String, holding data: LibraryData) async throws {
        let connection = try await PostgresNIOPeer.connect()
        try await connection.query("CREATE SCHEMA \(unescaped: schema)", logger: logger)
        try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger)
        for statement in [
            "CREATE TABLE author (id bigint PRIMARY KEY, name text NOT NULL)",
            """
            CREATE TABLE book (id bigint PRIMARY KEY, title text NOT NULL, pages bigint NOT NULL, published float8 NOT NULL,
                authorID bigint NOT NULL REFERENCES author(id), megabytes float8)
            """,
            // Sorted by code point, as the store sorts strings: the index serves the sort.
            "CREATE INDEX book_title ON book(title COLLATE \"C\")",
            "CREATE INDEX book_author ON book(authorID)",
            "CREATE TABLE tag (id bigint PRIMARY KEY, name text NOT NULL)",
            "CREATE TABLE bookTag (bookID bigint NOT NULL REFERENCES book(id), tagID bigint NOT NULL REFERENCES tag(id), PRIMARY KEY (bookID, tagID))",
            "CREATE INDEX bookTag_tag ON bookTag(tagID)",
        ] {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await connection.query("BEGIN", logger: logger)
        try await insert(data.tags, into: connection, "INSERT INTO tag SELECT * FROM unnest($1::bigint[], $2::text[])") {
            $0.append($1.map { Int64($0.id) })
            $0.append($1.map(\.name))
        }
        try await insert(data.authors, into: connection, "INSERT INTO author SELECT * FROM unnest($1::bigint[], $2::text[])") {
            $0.append($1.map { Int64($0.id) })
            $0.append($1.map(\.name))
        }
        // postgres-nio binds no array with NULLs: a printed book's size travels as -1.
        try await insert(
            data.books, into: connection,
            """
            INSERT INTO book SELECT id, title, pages, published, author, NULLIF(megabytes, -1)
            FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::float8[], $5::bigint[], $6::float8[])
                AS u(id, title, pages, published, author, megabytes)
            """
        ) {
            $0.append($1.map { Int64($0.id) })
            $0.append($1.map(\.title))
            $0.append($1.map { Int64($0.pages) })
            $0.append($1.map { $0.published.timeIntervalSinceReferenceDate })
            $0.append($1.map { Int64($0.authorID) })
            $0.append($1.map { $0.megabytes ?? -1 })
        }
        let links = data.books.flatMap { book in book.tagIDs.map { (Int64(book.id), Int64($0)) } }
        try await insert(links, into: connection, "INSERT INTO bookTag SELECT * FROM unnest($1::bigint[], $2::bigint[])") {
            $0.append($1.map(\.0))
            $0.append($1.map(\.1))
        }
        try await connection.query("COMMIT", logger: logger)
        // PostgreSQL's advice after a bulk load (the store analyzes the tables its save doubled).
        try await connection.query("ANALYZE author, book, tag, bookTag", logger: logger)
        try await connection.close()
    }

    private static func insert<Element>(
        _ elements: [Element], into connection: PostgresConnection, _ sql: String,
        bind: (inout PostgresBindings, ArraySlice<Element>) -> Void
    ) async throws {
        var start = 0
        while start < elements.count {
            var bindings = PostgresBindings()
            bind(&bindings, elements[start..<min(start + PostgresNIOPeer.batchRows, elements.count)])
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            start += PostgresNIOPeer.batchRows
        }
    }

    /// Workload L1: the pages of books sorted by title, each joined with its author.
    public static func readPages(_ connection: PostgresConnection) async throws -> LibraryData.PageSummary {
        var bookCount = 0
        for try await count in try await connection.query("SELECT count(*) FROM book", logger: logger).decode(Int64.self) {
            bookCount = Int(count)
        }
        var summary = LibraryData.PageSummary()
        for offset in LibraryData.pageOffsets(bookCount: bookCount) {
            let rows = try await connection.query(
                """
                SELECT book.pages, author.name FROM book JOIN author ON author.id = book.authorID
                ORDER BY book.title COLLATE "C" LIMIT \(LibraryData.pageSize) OFFSET \(offset)
                """, logger: logger)
            for try await (pages, name) in rows.decode((Int64, String).self) { summary.add(pages: Int(pages), authorName: name) }
        }
        return summary
    }

    /// Workload L2: every author with their books, in one join ordered by author, each book
    /// decoded.
    public static func walkAuthors(_ connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT author.id, author.name, book.id, book.title, book.pages, book.published, book.megabytes
            FROM author JOIN book ON book.authorID = author.id ORDER BY author.id
            """, logger: logger)
        var pages = 0
        var author: LibraryData.Author?
        var books: [LibraryData.Book] = []
        for try await (authorID, name, id, title, bookPages, published, megabytes) in rows.decode(
            (Int64, String, Int64, String, Int64, Double, Double?).self)
        {
            if author?.id != Int(authorID) {
                for book in books { pages &+= book.pages }
                books.removeAll(keepingCapacity: true)
                author = LibraryData.Author(id: Int(authorID), name: name)
            }
            books.append(
                LibraryData.Book(
                    id: Int(id), title: title, pages: Int(bookPages), published: Date(timeIntervalSinceReferenceDate: published),
                    authorID: Int(authorID), tagIDs: [], megabytes: megabytes))
        }
        for book in books { pages &+= book.pages }
        return pages
    }

    /// Workload L3: the books under the page bound read with their titles, the new titles
    /// written in one statement, in one transaction.
    public static func changeOnePercent(_ connection: PostgresConnection) async throws -> Int {
        try await connection.query("BEGIN", logger: logger)
        var ids: [Int64] = []
        var titles: [String] = []
        let rows = try await connection.query("SELECT id, title FROM book WHERE pages < \(LibraryData.changedPagesBound)", logger: logger)
        for try await (id, title) in rows.decode((Int64, String).self) {
            ids.append(id)
            titles.append(LibraryData.changedTitle(title))
        }
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(ids)
        bindings.append(titles)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: "UPDATE book SET title = u.title FROM unnest($1::bigint[], $2::text[]) AS u(id, title) WHERE book.id = u.id",
                binds: bindings), logger: logger)
        try await connection.query("COMMIT", logger: logger)
        return ids.count
    }
}
