import Foundation

/// Checks that every peer of the Library workloads reads and changes the same books: their
/// figures are comparable only if they do the same work.
public enum LibraryAgreement {
    public struct Disagreement: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs L1, L2 and L3 once on each peer's fixture of `objects` objects (L3 on copies; on
    /// PostgreSQL, twice, which toggles the titles back) and compares what they give.
    public static func check(objects: Int) async throws {
        let grdb = try await LibraryGRDBPeer.fixture(objects: objects)
        var results: [(String, LibraryData.PageSummary, Int, Int)] = []
        for sqlite in [false, true] {
            let url = try await LibraryStrataPeer.fixture(objects: objects, sqlite: sqlite)
            let context = try await LibraryStrataPeer.open(url)
            let changed = try await LibraryStrataPeer.changeOnePercent(LibraryStrataPeer.open(Fixtures.scratchCopy(of: url)))
            results.append(
                (sqlite ? "Strata SQLite" : "Strata", try await LibraryStrataPeer.readPages(context),
                 try await LibraryStrataPeer.walkAuthors(context), changed))
        }
        let pool = try GRDBPeer.open(grdb)
        results.append(
            ("GRDB", try LibraryGRDBPeer.readPages(pool), try LibraryGRDBPeer.walkAuthors(pool),
             try LibraryGRDBPeer.changeOnePercent(GRDBPeer.open(Fixtures.scratchCopy(of: grdb)))))
        let connection = try SQLiteCPeer.Connection(grdb)
        results.append(
            ("SQLite C API", try LibrarySQLiteCPeer.readPages(connection), try LibrarySQLiteCPeer.walkAuthors(connection),
             try LibrarySQLiteCPeer.changeOnePercent(SQLiteCPeer.Connection(Fixtures.scratchCopy(of: grdb)))))
        if PostgresNIOPeer.serverURL != nil {
            let context = try await LibraryStrataPeer.open(LibraryStrataPeer.postgresFixture(objects: objects))
            let changed = try await LibraryStrataPeer.changeOnePercent(context)
            _ = try await LibraryStrataPeer.changeOnePercent(context)
            results.append(
                ("Strata Postgres", try await LibraryStrataPeer.readPages(context), try await LibraryStrataPeer.walkAuthors(context), changed))
            let connection = try await PostgresNIOPeer.open(schema: LibraryPostgresNIOPeer.fixture(objects: objects))
            let nioChanged = try await LibraryPostgresNIOPeer.changeOnePercent(connection)
            _ = try await LibraryPostgresNIOPeer.changeOnePercent(connection)
            results.append(
                ("postgres-nio", try await LibraryPostgresNIOPeer.readPages(connection), try await LibraryPostgresNIOPeer.walkAuthors(connection),
                 nioChanged))
            try await connection.close()
        }
        let data = LibraryData.generate(objects: objects)
        let expectedPages = data.books.reduce(0) { $0 + $1.pages }
        let expectedChanged = data.books.filter { $0.pages < LibraryData.changedPagesBound }.count
        let (_, firstPage, _, _) = results[0]
        for (peer, page, pages, changed) in results {
            guard page == firstPage, page.books == LibraryData.pageSize * LibraryData.pageCount, pages == expectedPages, changed == expectedChanged else {
                throw Disagreement(
                    description: "\(peer): pages \(page) (Strata: \(firstPage)), walk \(pages) of \(expectedPages), changed \(changed) of \(expectedChanged)")
            }
        }
    }
}
