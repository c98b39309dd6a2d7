import Benchmark
import Foundation
import PostgresNIO
import Workloads

/// Strata and its peers on the same data, in the same run. Each benchmark is named
/// `workload/N/peer`; `scripts/bench` pairs Strata's rows with its peers' into one table.
/// Files to start from are made beforehand by `prepare-fixtures` (see ``Fixtures``), so that
/// making them counts in no benchmark's time or memory.
let benchmarks: @Sendable () -> Void = {
    let sizes = (ProcessInfo.processInfo.environment["STRATA_BENCH_SIZES"] ?? "100000")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    for count in sizes {
        let large = count >= 1_000_000
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .peakMemoryResident],
            // Raw nanoseconds (and bytes): scripts/bench-table reads the samples unscaled.
            timeUnits: .nanoseconds,
            warmupIterations: 0,
            maxDuration: .seconds(large ? 30 : 10),
            maxIterations: large ? 3 : 8
        )
        func measure(_ workload: String, _ peer: String, _ body: @escaping @Sendable (Benchmark) async throws -> Void) {
            Benchmark("\(workload)/\(count)/\(peer)", configuration: configuration) { benchmark in try await body(benchmark) }
        }
        let lookups = PersonRecord.lookupEmails(count: 1_000, among: count)
        let bound = PersonRecord.scanBound(among: count)

        // 1. Insert N objects and save them to a new store.
        measure("1 insert+save", "Strata") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.strata")
            benchmark.startMeasurement()
            let context = try await StrataPeer.open(url)
            try await StrataPeer.insert(records, into: context)
            try await StrataPeer.save(context)
            benchmark.stopMeasurement()
        }
        measure("1 insert+save", "Strata SQLite") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            benchmark.startMeasurement()
            let context = try await StrataPeer.open(url)
            try await StrataPeer.insert(records, into: context)
            try await StrataPeer.save(context)
            benchmark.stopMeasurement()
        }
        measure("1 insert+save", "GRDB") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            benchmark.startMeasurement()
            try GRDBPeer.insert(records, into: GRDBPeer.create(at: url))
            benchmark.stopMeasurement()
        }
        measure("1 insert+save", "SQLite C API") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            benchmark.startMeasurement()
            try SQLiteCPeer.insert(records, into: SQLiteCPeer.create(at: url))
            benchmark.stopMeasurement()
        }
        measure("1 insert+save", "JSON") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.json")
            benchmark.startMeasurement()
            try JSONPeer.save(records, to: url)
            benchmark.stopMeasurement()
        }
        measure("1 save", "Strata") { benchmark in
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.strata")
            let context = try await StrataPeer.open(url)
            try await StrataPeer.insert(PersonRecord.generate(count: count), into: context)
            benchmark.startMeasurement()
            try await StrataPeer.save(context)
            benchmark.stopMeasurement()
        }
        measure("1 save", "LZ4 by hand") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.lz4")
            benchmark.startMeasurement()
            try RawLZ4Peer.save(records, to: url)
            benchmark.stopMeasurement()
        }

        // 2. Open the store until a context can fetch.
        measure("2 open", "Strata") { benchmark in
            let url = try await StrataPeer.fixture(count: count)
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.open(url))
            benchmark.stopMeasurement()
        }
        measure("2 open", "Strata SQLite") { benchmark in
            let url = try await StrataPeer.fixture(count: count, sqlite: true)
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.open(url))
            benchmark.stopMeasurement()
        }
        measure("2 open", "LZ4 by hand") { benchmark in
            let url = try await RawLZ4Peer.fixture(count: count)
            benchmark.startMeasurement()
            blackHole(try RawLZ4Peer.load(url))
            benchmark.stopMeasurement()
        }
        measure("2 open", "JSON") { benchmark in
            let url = try await JSONPeer.fixture(count: count)
            benchmark.startMeasurement()
            blackHole(try JSONPeer.load(url))
            benchmark.stopMeasurement()
        }

        // 3. Fetch all N as managed objects and read one attribute of each.
        measure("3 fetch all", "Strata") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.fetchAll(context))
            benchmark.stopMeasurement()
        }
        measure("3 fetch all", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count, sqlite: true))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.fetchAll(context))
            benchmark.stopMeasurement()
        }
        measure("3 fetch all", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(GRDBPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try GRDBPeer.fetchAll(pool))
            benchmark.stopMeasurement()
        }
        measure("3 fetch all", "SQLite C API") { benchmark in
            let connection = try await SQLiteCPeer.Connection(GRDBPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try SQLiteCPeer.fetchAll(connection))
            benchmark.stopMeasurement()
        }

        // 4. Update one object in ten and save.
        measure("4 update 10%", "Strata") { benchmark in
            let context = try await StrataPeer.open(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count)))
            benchmark.startMeasurement()
            try await StrataPeer.updateTenthAndSave(context)
            benchmark.stopMeasurement()
        }
        measure("4 update 10%", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: true)))
            benchmark.startMeasurement()
            try await StrataPeer.updateTenthAndSave(context)
            benchmark.stopMeasurement()
        }
        measure("4 update 10%", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(Fixtures.scratchCopy(of: GRDBPeer.fixture(count: count)))
            benchmark.startMeasurement()
            try GRDBPeer.updateTenth(pool)
            benchmark.stopMeasurement()
        }
        measure("4 update 10%", "SQLite C API") { benchmark in
            let connection = try await SQLiteCPeer.Connection(Fixtures.scratchCopy(of: GRDBPeer.fixture(count: count)))
            benchmark.startMeasurement()
            try SQLiteCPeer.updateTenth(connection)
            benchmark.stopMeasurement()
        }

        // 5. Many single lookups on an indexed attribute; a range scan on an unindexed one.
        measure("5a 1000 lookups", "Strata") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.lookUp(lookups, in: context))
            benchmark.stopMeasurement()
        }
        measure("5a 1000 lookups", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count, sqlite: true))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.lookUp(lookups, in: context))
            benchmark.stopMeasurement()
        }
        measure("5a 1000 lookups", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(GRDBPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try GRDBPeer.lookUp(lookups, in: pool))
            benchmark.stopMeasurement()
        }
        measure("5a 1000 lookups", "SQLite C API") { benchmark in
            let connection = try await SQLiteCPeer.Connection(GRDBPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try SQLiteCPeer.lookUp(lookups, in: connection))
            benchmark.stopMeasurement()
        }
        measure("5b range scan", "Strata") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.scan(below: bound, in: context))
            benchmark.stopMeasurement()
        }
        measure("5b range scan", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count, sqlite: true))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.scan(below: bound, in: context))
            benchmark.stopMeasurement()
        }
        measure("5b range scan", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(GRDBPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try GRDBPeer.scan(below: bound, in: pool))
            benchmark.stopMeasurement()
        }

        // 6. Migrate the store with a lightweight change, against opening and saving it.
        measure("6 migrate", "Strata") { benchmark in
            let url = try await Fixtures.scratchCopy(of: StrataPeer.fixture(count: count))
            benchmark.startMeasurement()
            try await StrataPeer.migrate(url)
            benchmark.stopMeasurement()
        }
        measure("6 migrate", "Strata SQLite") { benchmark in
            let url = try await Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: true))
            benchmark.startMeasurement()
            try await StrataPeer.migrateSQLite(url)
            benchmark.stopMeasurement()
        }
        measure("6 migrate", "Strata load+save") { benchmark in
            let url = try await Fixtures.scratchCopy(of: StrataPeer.fixture(count: count))
            benchmark.startMeasurement()
            try await StrataPeer.loadAndSave(url)
            benchmark.stopMeasurement()
        }

        // 7. Four background contexts inserting and saving in batches at once. Two batches each
        // (of a multiple of 10 people, so that a batch holds its people's managers): a save
        // rewrites the whole atomic store file, so many small batches would measure that rewrite
        // N/batch times over rather than the contexts working together.
        let batch = max(10, count / 80 * 10)
        measure("7 4 writers", "Strata") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.strata")
            benchmark.startMeasurement()
            try await StrataPeer.insertConcurrently(records, workers: 4, batch: batch, at: url)
            benchmark.stopMeasurement()
        }
        measure("7 4 writers", "Strata SQLite") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            benchmark.startMeasurement()
            try await StrataPeer.insertConcurrently(records, workers: 4, batch: batch, at: url)
            benchmark.stopMeasurement()
        }
        measure("7 4 writers", "GRDB") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            benchmark.startMeasurement()
            try await GRDBPeer.insertConcurrently(records, workers: 4, batch: batch, into: GRDBPeer.create(at: url))
            benchmark.stopMeasurement()
        }

        // 9–11. Batch requests, which make no managed object, against GRDB's fastest equivalent.
        for (store, suffix) in [("Strata", false), ("Strata SQLite", true)] {
            measure("9 batch insert", store) { benchmark in
                let objects = StrataPeer.batchInsertObjects(PersonRecord.generate(count: count))
                let url = try Fixtures.scratchFolder().appendingPathComponent(suffix ? "people.sqlite" : "people.strata")
                benchmark.startMeasurement()
                try await StrataPeer.batchInsert(objects, at: url)
                benchmark.stopMeasurement()
            }
            measure("10 batch update 10%", store) { benchmark in
                let context = try await StrataPeer.open(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: suffix)))
                benchmark.startMeasurement()
                try await StrataPeer.batchUpdateTenth(context)
                benchmark.stopMeasurement()
            }
            measure("11 batch delete 10%", store) { benchmark in
                let context = try await StrataPeer.open(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: suffix)))
                benchmark.startMeasurement()
                try await StrataPeer.batchDeleteTenth(context)
                benchmark.stopMeasurement()
            }
        }
        measure("9 batch insert", "GRDB") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            benchmark.startMeasurement()
            try GRDBPeer.insert(records, into: GRDBPeer.create(at: url))
            benchmark.stopMeasurement()
        }
        measure("10 batch update 10%", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(Fixtures.scratchCopy(of: GRDBPeer.fixture(count: count)))
            benchmark.startMeasurement()
            try GRDBPeer.updateTenthInOneStatement(pool)
            benchmark.stopMeasurement()
        }
        measure("11 batch delete 10%", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(Fixtures.scratchCopy(of: GRDBPeer.fixture(count: count)))
            benchmark.startMeasurement()
            try GRDBPeer.deleteTenth(pool)
            benchmark.stopMeasurement()
        }

        // 13. A dictionary fetch grouped by age, in SQL on both sides.
        measure("13 grouped fetch", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.fixture(count: count, sqlite: true))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.groupByAge(context))
            benchmark.stopMeasurement()
        }
        measure("13 grouped fetch", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(GRDBPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try GRDBPeer.groupByAge(pool))
            benchmark.stopMeasurement()
        }

        // 8. One new object saved into a store of N (the store already open).
        let one = PersonRecord.generate(count: 1)[0]
        measure("8 save one", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: true)))
            benchmark.startMeasurement()
            try await StrataPeer.insertOneAndSave(one, into: context)
            benchmark.stopMeasurement()
        }
        measure("8 save one", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(Fixtures.scratchCopy(of: GRDBPeer.fixture(count: count)))
            benchmark.startMeasurement()
            try GRDBPeer.insertOne(one, into: pool)
            benchmark.stopMeasurement()
        }
        // 8b. The same after a first save, untimed: a save of a store in use. GRDB's pool writes
        // to the write-ahead log when it opens (so that the log is never empty), and a first
        // write to an empty log syncs its header; Strata's store pays that at its first save, and
        // opens a second reader for the generation the save makes. 8 times those on Strata's
        // side only; 8b on neither side.
        let warmUp = PersonRecord.generate(count: 11)[10]  // one without a manager, as `one`
        measure("8b save one more", "Strata SQLite") { benchmark in
            let context = try await StrataPeer.open(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: true)))
            try await StrataPeer.insertOneAndSave(warmUp, into: context)
            benchmark.startMeasurement()
            try await StrataPeer.insertOneAndSave(one, into: context)
            benchmark.stopMeasurement()
        }
        measure("8b save one more", "GRDB") { benchmark in
            let pool = try await GRDBPeer.open(Fixtures.scratchCopy(of: GRDBPeer.fixture(count: count)))
            try GRDBPeer.insertOne(warmUp, into: pool)
            benchmark.startMeasurement()
            try GRDBPeer.insertOne(one, into: pool)
            benchmark.stopMeasurement()
        }

        // The Library data set: an object graph, on all three stores.
        libraryBenchmarks(objects: count, measure: measure)

        // The PostgreSQL store beside postgres-nio used directly, on the server STRATA_POSTGRES_URL
        // names (scripts/bench starts a throwaway one): workloads 1, 3, 4 and 5a.
        guard PostgresNIOPeer.serverURL != nil else { continue }
        measure("1 insert+save", "Strata Postgres") { benchmark in
            let records = PersonRecord.generate(count: count)
            let url = try StrataPeer.newPostgresStore("insert")
            benchmark.startMeasurement()
            let context = try await StrataPeer.open(url)
            try await StrataPeer.insert(records, into: context)
            try await StrataPeer.save(context)
            benchmark.stopMeasurement()
        }
        // The batched peer is the one the store is held to; the per-row one shows the cost of a
        // round trip per row, the way the peer used to write.
        let postgresInserts: [(String, @Sendable ([PersonRecord], PostgresConnection) async throws -> Void)] = [
            ("postgres-nio per row", { try await PostgresNIOPeer.insert($0, into: $1) }),
            ("postgres-nio", { try await PostgresNIOPeer.insertBatched($0, into: $1) }),
        ]
        for (peer, insert) in postgresInserts {
            measure("1 insert+save", peer) { benchmark in
                let records = PersonRecord.generate(count: count)
                let schema = PostgresNIOPeer.newSchema("insert")
                benchmark.startMeasurement()
                let connection = try await PostgresNIOPeer.create(schema: schema)
                try await insert(records, connection)
                benchmark.stopMeasurement()
                try await connection.close()
            }
        }
        measure("3 fetch all", "Strata Postgres") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.postgresFixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.fetchAll(context))
            benchmark.stopMeasurement()
        }
        measure("3 fetch all", "postgres-nio") { benchmark in
            let connection = try await PostgresNIOPeer.open(schema: PostgresNIOPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await PostgresNIOPeer.fetchAll(connection))
            benchmark.stopMeasurement()
            try await connection.close()
        }
        // The same reads through libpq on the caller's thread: what a synchronous driver would
        // save the store, which waits for postgres-nio's event loop (the store is not the peer).
        measure("3 fetch all", "libpq") { benchmark in
            let connection = try await LibPQPeer.open(count: count)
            benchmark.startMeasurement()
            blackHole(try LibPQPeer.fetchAll(connection))
            benchmark.stopMeasurement()
        }
        measure("4 update 10%", "Strata Postgres") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.postgresFixture(count: count))
            benchmark.startMeasurement()
            try await StrataPeer.updateTenthAndSave(context)
            benchmark.stopMeasurement()
        }
        let postgresUpdates: [(String, @Sendable (PostgresConnection) async throws -> Void)] = [
            ("postgres-nio per row", { try await PostgresNIOPeer.updateTenth($0) }),
            ("postgres-nio", { try await PostgresNIOPeer.updateTenthBatched($0) }),
        ]
        for (peer, update) in postgresUpdates {
            measure("4 update 10%", peer) { benchmark in
                let connection = try await PostgresNIOPeer.open(schema: PostgresNIOPeer.fixture(count: count))
                benchmark.startMeasurement()
                try await update(connection)
                benchmark.stopMeasurement()
                try await connection.close()
            }
        }
        measure("5a 1000 lookups", "Strata Postgres") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.postgresFixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.lookUp(lookups, in: context))
            benchmark.stopMeasurement()
        }
        measure("5a 1000 lookups", "postgres-nio") { benchmark in
            let connection = try await PostgresNIOPeer.open(schema: PostgresNIOPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await PostgresNIOPeer.lookUp(lookups, in: connection))
            benchmark.stopMeasurement()
            try await connection.close()
        }
        measure("5a 1000 lookups", "libpq") { benchmark in
            let connection = try await LibPQPeer.open(count: count)
            benchmark.startMeasurement()
            blackHole(try LibPQPeer.lookUp(lookups, in: connection))
            benchmark.stopMeasurement()
        }

        // 9, 10, 11 and 13 on PostgreSQL: batch requests and a grouped fetch, in SQL.
        measure("9 batch insert", "Strata Postgres") { benchmark in
            let objects = StrataPeer.batchInsertObjects(PersonRecord.generate(count: count))
            let url = try StrataPeer.newPostgresStore("batch_insert")
            benchmark.startMeasurement()
            try await StrataPeer.batchInsert(objects, at: url)
            benchmark.stopMeasurement()
        }
        measure("9 batch insert", "postgres-nio") { benchmark in
            let records = PersonRecord.generate(count: count)
            let schema = PostgresNIOPeer.newSchema("batch_insert")
            benchmark.startMeasurement()
            let connection = try await PostgresNIOPeer.create(schema: schema)
            try await PostgresNIOPeer.insertBatched(records, into: connection)
            benchmark.stopMeasurement()
            try await connection.close()
        }
        measure("10 batch update 10%", "Strata Postgres") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.postgresFixture(count: count))
            benchmark.startMeasurement()
            try await StrataPeer.batchUpdateTenth(context)
            benchmark.stopMeasurement()
        }
        measure("10 batch update 10%", "postgres-nio") { benchmark in
            let connection = try await PostgresNIOPeer.open(schema: PostgresNIOPeer.fixture(count: count))
            benchmark.startMeasurement()
            try await PostgresNIOPeer.updateTenthInOneStatement(connection)
            benchmark.stopMeasurement()
            try await connection.close()
        }
        measure("11 batch delete 10%", "Strata Postgres") { benchmark in
            let url = try StrataPeer.newPostgresStore("batch_delete")
            let context = try await StrataPeer.open(url)
            try await StrataPeer.insert(PersonRecord.generate(count: count), into: context)
            try await StrataPeer.save(context)
            benchmark.startMeasurement()
            try await StrataPeer.batchDeleteTenth(context)
            benchmark.stopMeasurement()
        }
        measure("11 batch delete 10%", "postgres-nio") { benchmark in
            let schema = PostgresNIOPeer.newSchema("batch_delete")
            let connection = try await PostgresNIOPeer.create(schema: schema)
            try await PostgresNIOPeer.insert(PersonRecord.generate(count: count), into: connection)
            benchmark.startMeasurement()
            try await PostgresNIOPeer.deleteTenthInOneStatement(connection)
            benchmark.stopMeasurement()
            try await connection.close()
        }
        measure("13 grouped fetch", "Strata Postgres") { benchmark in
            let context = try await StrataPeer.open(StrataPeer.postgresFixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await StrataPeer.groupByAge(context))
            benchmark.stopMeasurement()
        }
        measure("13 grouped fetch", "postgres-nio") { benchmark in
            let connection = try await PostgresNIOPeer.open(schema: PostgresNIOPeer.fixture(count: count))
            benchmark.startMeasurement()
            blackHole(try await PostgresNIOPeer.groupByAge(connection))
            benchmark.stopMeasurement()
            try await connection.close()
        }

        // 14. A fetched results controller of the N people by score (SQLite store, main-queue
        // context), following single-object saves: one save per iteration, up to 1,000, its
        // allocations counted. Beside it, the same saves with the result fetched again after
        // each, and with nothing following (the save alone: what the controller adds is the
        // difference). The store is opened and the result fetched once per process, unmeasured.
        let perSave = Benchmark.Configuration(
            metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
            timeUnits: .nanoseconds,
            warmupIterations: 0,
            maxDuration: .seconds(large ? 30 : 10),
            maxIterations: 1_000
        )
        let followers: [(String, ControllerWorkload.Follower)] = [
            ("Strata SQLite", .controller), ("fetch again", .fetchAgain), ("nothing following", .nothing),
        ]
        for (peer, follower) in followers {
            Benchmark("14 controller, one save/\(count)/\(peer)", configuration: perSave) { @MainActor benchmark in
                let workload = try await ControllerWorkload.shared(count: count, following: follower)
                benchmark.startMeasurement()
                try workload.saveOneChange()
                benchmark.stopMeasurement()
            }
        }

        // 12. Many app servers: 4 processes write N/10 people to one store at once, 100 per save
        // (one transaction per save for postgres-nio), each with a coordinator (or connection) of its own.
        let writers = 4
        measure("12 4 processes write", "Strata Postgres") { benchmark in
            let url = try StrataPeer.newPostgresStore("writers")
            _ = try await StrataPeer.open(url)  // makes the tables, as a deployment has them
            benchmark.startMeasurement()
            try await PostgresWriters.run("strata", url.absoluteString, processes: writers, count: count / 10)
            benchmark.stopMeasurement()
        }
        measure("12 4 processes write", "postgres-nio") { benchmark in
            let schema = PostgresNIOPeer.newSchema("writers")
            try await PostgresNIOPeer.create(schema: schema).close()
            benchmark.startMeasurement()
            try await PostgresWriters.run("postgres-nio", schema, processes: writers, count: count / 10)
            benchmark.stopMeasurement()
        }
    }
}
