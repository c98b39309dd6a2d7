import Benchmark
import Foundation
import PostgresNIO
import Workloads

/// The Library data set's workloads (``LibraryData``: authors, books and ebooks, tags), on
/// the three stores, against GRDB with associations and SQLite's C API by hand (the PostgreSQL
/// store against postgres-nio): L0 the data set imported into a new store, L1 a page of books
/// sorted by title with their authors prefetched (ten pages of 50), L2 every author's books
/// through to-many faults, L3 one book in a hundred retitled and saved. `measure` names a
/// benchmark `workload/N/peer`.
func libraryBenchmarks(objects count: Int, measure: (String, String, @escaping @Sendable (Benchmark) async throws -> Void) -> Void) {
    let stores: [(String, Bool)] = [("Strata", false), ("Strata SQLite", true)]
    for (store, sqlite) in stores {
        measure("L0 import", store) { benchmark in
            let data = LibraryData.generate(objects: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent(sqlite ? "library.sqlite" : "library.strata")
            let context = try await LibraryStrataPeer.open(url)
            benchmark.startMeasurement()
            try await LibraryStrataPeer.insert(data, into: context)
            benchmark.stopMeasurement()
        }
        measure("L1 page of books", store) { benchmark in
            let context = try await LibraryStrataPeer.open(LibraryStrataPeer.fixture(objects: count, sqlite: sqlite))
            benchmark.startMeasurement()
            blackHole(try await LibraryStrataPeer.readPages(context))
            benchmark.stopMeasurement()
        }
        measure("L2 walk authors", store) { benchmark in
            let context = try await LibraryStrataPeer.open(LibraryStrataPeer.fixture(objects: count, sqlite: sqlite))
            benchmark.startMeasurement()
            blackHole(try await LibraryStrataPeer.walkAuthors(context))
            benchmark.stopMeasurement()
        }
        measure("L3 change 1%", store) { benchmark in
            let url = try await Fixtures.scratchCopy(of: LibraryStrataPeer.fixture(objects: count, sqlite: sqlite))
            let context = try await LibraryStrataPeer.open(url)
            benchmark.startMeasurement()
            blackHole(try await LibraryStrataPeer.changeOnePercent(context))
            benchmark.stopMeasurement()
        }
    }
    measure("L0 import", "GRDB") { benchmark in
        let data = LibraryData.generate(objects: count)
        let url = try Fixtures.scratchFolder().appendingPathComponent("library.sqlite")
        benchmark.startMeasurement()
        blackHole(try LibraryGRDBPeer.create(at: url, holding: data))
        benchmark.stopMeasurement()
    }
    measure("L1 page of books", "GRDB") { benchmark in
        let pool = try await GRDBPeer.open(LibraryGRDBPeer.fixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try LibraryGRDBPeer.readPages(pool))
        benchmark.stopMeasurement()
    }
    measure("L2 walk authors", "GRDB") { benchmark in
        let pool = try await GRDBPeer.open(LibraryGRDBPeer.fixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try LibraryGRDBPeer.walkAuthors(pool))
        benchmark.stopMeasurement()
    }
    measure("L3 change 1%", "GRDB") { benchmark in
        let pool = try await GRDBPeer.open(Fixtures.scratchCopy(of: LibraryGRDBPeer.fixture(objects: count)))
        benchmark.startMeasurement()
        blackHole(try LibraryGRDBPeer.changeOnePercent(pool))
        benchmark.stopMeasurement()
    }
    measure("L1 page of books", "SQLite C API") { benchmark in
        let connection = try await SQLiteCPeer.Connection(LibraryGRDBPeer.fixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try LibrarySQLiteCPeer.readPages(connection))
        benchmark.stopMeasurement()
    }
    measure("L2 walk authors", "SQLite C API") { benchmark in
        let connection = try await SQLiteCPeer.Connection(LibraryGRDBPeer.fixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try LibrarySQLiteCPeer.walkAuthors(connection))
        benchmark.stopMeasurement()
    }
    measure("L3 change 1%", "SQLite C API") { benchmark in
        let connection = try await SQLiteCPeer.Connection(Fixtures.scratchCopy(of: LibraryGRDBPeer.fixture(objects: count)))
        benchmark.startMeasurement()
        blackHole(try LibrarySQLiteCPeer.changeOnePercent(connection))
        benchmark.stopMeasurement()
    }

    // On PostgreSQL, the fixtures are schemas kept for the run: L3 changes them (each change
    // toggles the same books' titles, so every iteration writes as much).
    guard PostgresNIOPeer.serverURL != nil else { return }
    measure("L0 import", "Strata Postgres") { benchmark in
        let data = LibraryData.generate(objects: count)
        let context = try await LibraryStrataPeer.open(StrataPeer.newPostgresStore("library_import"))
        benchmark.startMeasurement()
        try await LibraryStrataPeer.insert(data, into: context)
        benchmark.stopMeasurement()
    }
    measure("L0 import", "postgres-nio") { benchmark in
        let data = LibraryData.generate(objects: count)
        let schema = PostgresNIOPeer.newSchema("nio_library_import")
        benchmark.startMeasurement()
        try await LibraryPostgresNIOPeer.create(schema: schema, holding: data)
        benchmark.stopMeasurement()
    }
    measure("L1 page of books", "Strata Postgres") { benchmark in
        let context = try await LibraryStrataPeer.open(LibraryStrataPeer.postgresFixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try await LibraryStrataPeer.readPages(context))
        benchmark.stopMeasurement()
    }
    measure("L2 walk authors", "Strata Postgres") { benchmark in
        let context = try await LibraryStrataPeer.open(LibraryStrataPeer.postgresFixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try await LibraryStrataPeer.walkAuthors(context))
        benchmark.stopMeasurement()
    }
    measure("L3 change 1%", "Strata Postgres") { benchmark in
        let context = try await LibraryStrataPeer.open(LibraryStrataPeer.postgresFixture(objects: count))
        benchmark.startMeasurement()
        blackHole(try await LibraryStrataPeer.changeOnePercent(context))
        benchmark.stopMeasurement()
    }
    let peers: [(String, @Sendable (PostgresConnection) async throws -> Void)] = [
        ("L1 page of books", { blackHole(try await LibraryPostgresNIOPeer.readPages($0)) }),
        ("L2 walk authors", { blackHole(try await LibraryPostgresNIOPeer.walkAuthors($0)) }),
        ("L3 change 1%", { blackHole(try await LibraryPostgresNIOPeer.changeOnePercent($0)) }),
    ]
    for (workload, run) in peers {
        measure(workload, "postgres-nio") { benchmark in
            let connection = try await PostgresNIOPeer.open(schema: LibraryPostgresNIOPeer.fixture(objects: count))
            benchmark.startMeasurement()
            try await run(connection)
            benchmark.stopMeasurement()
            try await connection.close()
        }
    }
}
