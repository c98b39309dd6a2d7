import Foundation
import Workloads

/// Runs one Strata workload once, outside the benchmark harness, for a profiler
/// (`valgrind --tool=callgrind`, `perf record`) to look at: the SQLite store's, or with
/// `-binary` the binary store's (`save-binary` times the save of N inserted objects alone), or
/// with `-postgres` the PostgreSQL store's, on the server `STRATA_POSTGRES_URL` names.
///
///     profile-workload insert|fetch|fetch-batched|controller|refetch|controller-save|save-alone|save-one|first-save|update|lookups|lookups-many|save|open|batch-insert|batch-delete[-binary|-postgres] N
///     profile-workload library-page|library-walk|library-change|library-import[-binary|-postgres] N
///     profile-workload peer-libpq-fetch|peer-libpq-lookups|peer-nio-fetch|peer-nio-lookups N
///
/// The fixture it starts from is made first (and kept in `STRATA_BENCH_FIXTURES`), outside what
/// `STRATA_PROFILE_START` marks; a profiler attached from the start sees both.
@main enum ProfileWorkload {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let workload = arguments.first, let count = arguments.dropFirst().first.flatMap(Int.init) else {
            FileHandle.standardError.write(Data("usage: profile-workload insert|fetch|fetch-batched|controller|refetch|controller-save|save-alone|save-one|first-save|update|lookups|lookups-many|save|open|batch-insert|batch-delete[-binary|-postgres] N\n".utf8))
            exit(2)
        }
        if workload.hasPrefix("library-") {
            try await library(workload, objects: count)
            return
        }
        if workload.hasPrefix("peer-") {
            try await postgresPeer(workload, count: count)
            return
        }
        let binary = workload.hasSuffix("-binary")
        let postgres = workload.hasSuffix("-postgres")
        let fixture = postgres ? try await StrataPeer.postgresFixture(count: count) : try await StrataPeer.fixture(count: count, sqlite: !binary)
        let fresh = postgres
            ? try StrataPeer.newPostgresStore("profile") : try Fixtures.scratchFolder().appendingPathComponent(binary ? "people.strata" : "people.sqlite")
        // A PostgreSQL fixture is a schema: updating it changes it for the next run, which is fine for a profile.
        func scratch(_ url: URL) throws -> URL { postgres ? url : try Fixtures.scratchCopy(of: url) }
        var started = ContinuousClock.now
        switch workload.replacingOccurrences(of: "-binary", with: "").replacingOccurrences(of: "-postgres", with: "") {
        case "insert":
            let context = try await StrataPeer.open(fresh)
            try await StrataPeer.insert(PersonRecord.generate(count: count), into: context)
            try await StrataPeer.save(context)
        case "save":
            let context = try await StrataPeer.open(fresh)
            try await StrataPeer.insert(PersonRecord.generate(count: count), into: context)
            started = ContinuousClock.now
            try await StrataPeer.save(context)
        case "batch-insert":
            let objects = StrataPeer.batchInsertObjects(PersonRecord.generate(count: count))
            started = ContinuousClock.now
            try await StrataPeer.batchInsert(objects, at: fresh)
        case "batch-delete":
            if postgres {
                // As benchmark 11 runs it: a store of its own (the fixture's people were deleted
                // by the first run), the delete timed alone.
                let context = try await StrataPeer.open(StrataPeer.newPostgresStore("profile_batch_delete"))
                try await StrataPeer.insert(PersonRecord.generate(count: count), into: context)
                try await StrataPeer.save(context)
                started = ContinuousClock.now
                try await StrataPeer.batchDeleteTenth(context)
                // The context's 100,000 objects go after the time is taken, as in the benchmark.
                FileHandle.standardError.write(Data("\(workload) \(count): \(ContinuousClock.now - started)\n".utf8))
                withExtendedLifetime(context) {}
                return
            } else {
                try await StrataPeer.batchDeleteTenth(StrataPeer.open(scratch(fixture)))
            }
        case "open":
            _ = try await StrataPeer.open(fixture)
        case "fetch":
            // Timed as benchmark 3 times it: the fetch alone, once the store is open, after a
            // first fetch has warmed the allocator (the first one's page faults vary by half).
            _ = try await StrataPeer.fetchAll(StrataPeer.open(fixture))
            let context = try await StrataPeer.open(fixture)
            started = ContinuousClock.now
            _ = try await StrataPeer.fetchAll(context)
        case "fetch-batched":
            _ = try await StrataPeer.fetchAllInBatches(StrataPeer.open(fixture))
        case "controller", "refetch":
            // Per change: the controller following 1,000 changes, or a fetch after each of 20.
            let refetching = workload.hasPrefix("refetch")
            let controller = try await ControllerWorkload(fixture, following: refetching ? .fetchAgain : .controller)
            let perChange = try controller.changeOneAtATime(refetching ? 20 : 1_000)
            FileHandle.standardError.write(Data("\(workload) \(count): \(perChange) per change\n".utf8))
        case "controller-save", "save-alone":
            // Per save of one change: with a controller following, or nothing (benchmark 14).
            let follower: ControllerWorkload.Follower = workload == "save-alone" ? .nothing : .controller
            let controller = try await ControllerWorkload(scratch(fixture), following: follower)
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<1_000 { try controller.saveOneChange() }
            FileHandle.standardError.write(Data("\(workload) \(count): \((clock.now - start) / 1_000) per save\n".utf8))
        case "save-one":
            // Benchmark 8's save, 1,000 times in a row on one context, each timed: the first
            // also prepares its statements and takes a block of reference numbers.
            let context = try await StrataPeer.open(scratch(fixture))
            let record = PersonRecord.generate(count: 1)[0]
            var times: [Duration] = []
            for _ in 0..<1_000 {
                let start = ContinuousClock.now
                try await StrataPeer.insertOneAndSave(record, into: context)
                times.append(ContinuousClock.now - start)
            }
            func median(_ range: Range<Int>) -> Duration { times[range].sorted()[range.count / 2] }
            FileHandle.standardError.write(
                Data("save-one: first \(times[0]), median of 2–10 \(median(1..<10)), of 901–1000 \(median(900..<1_000))\n".utf8))
        case "first-save":
            // Benchmark 8 as it runs, 100 times: a store opened, then one object saved, timed.
            let record = PersonRecord.generate(count: 1)[0]
            var times: [Duration] = []
            for _ in 0..<100 {
                let context = try await StrataPeer.open(scratch(fixture))
                let start = ContinuousClock.now
                try await StrataPeer.insertOneAndSave(record, into: context)
                times.append(ContinuousClock.now - start)
            }
            FileHandle.standardError.write(Data("first-save: median \(times.sorted()[times.count / 2])\n".utf8))
        case "update":
            // Timed as benchmark 4 times it: from the open store on.
            let context = try await StrataPeer.open(scratch(fixture))
            started = ContinuousClock.now
            try await StrataPeer.updateTenthAndSave(context)
        case "lookups":
            _ = try await StrataPeer.lookUp(PersonRecord.lookupEmails(count: 1_000, among: count), in: StrataPeer.open(fixture))
        case "lookups-many":
            // Benchmark 5a's lookups 50 times over, for enough samples under perf.
            _ = try await StrataPeer.lookUp(PersonRecord.lookupEmails(count: 50_000, among: count), in: StrataPeer.open(fixture))
        default:
            FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
            exit(2)
        }
        FileHandle.standardError.write(Data("\(workload) \(count): \(ContinuousClock.now - started)\n".utf8))
    }

    /// The PostgreSQL peers' reads, `peer-libpq|nio-fetch|lookups N`: benchmark 3's fetch of
    /// every person and 5a's 1,000 lookups, through libpq on this thread or through postgres-nio.
    static func postgresPeer(_ workload: String, count: Int) async throws {
        let emails = PersonRecord.lookupEmails(count: 1_000, among: count)
        let started: ContinuousClock.Instant
        let ended: ContinuousClock.Instant
        // The sum of ages, or the people found: the same from both peers.
        let result: Int
        switch workload {
        case "peer-libpq-fetch", "peer-libpq-lookups":
            let connection = try await LibPQPeer.open(count: count)
            started = ContinuousClock.now
            result = workload.hasSuffix("fetch") ? try LibPQPeer.fetchAll(connection) : try LibPQPeer.lookUp(emails, in: connection)
            ended = ContinuousClock.now
        case "peer-nio-fetch", "peer-nio-lookups":
            let connection = try await PostgresNIOPeer.open(schema: PostgresNIOPeer.fixture(count: count))
            started = ContinuousClock.now
            result = workload.hasSuffix("fetch") ? try await PostgresNIOPeer.fetchAll(connection) : try await PostgresNIOPeer.lookUp(emails, in: connection)
            ended = ContinuousClock.now
            try await connection.close()
        default:
            FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
            exit(2)
        }
        FileHandle.standardError.write(Data("\(workload) \(count): \(ended - started) (result \(result))\n".utf8))
    }

    /// The Library workloads: `library-page|walk|change|import[-binary|-postgres] N`, on
    /// Strata's store (`import` inserts and saves the data set in a new store).
    static func library(_ workload: String, objects: Int) async throws {
        let store = workload.hasSuffix("-binary") ? "binary" : workload.hasSuffix("-postgres") ? "postgres" : "sqlite"
        if workload.hasPrefix("library-import") {
            let url = store == "postgres"
                ? try StrataPeer.newPostgresStore("profile_library")
                : try Fixtures.scratchFolder().appendingPathComponent(store == "binary" ? "library.strata" : "library.sqlite")
            let data = LibraryData.generate(objects: objects)
            let context = try await LibraryStrataPeer.open(url)
            let started = ContinuousClock.now
            try await LibraryStrataPeer.insert(data, into: context)
            FileHandle.standardError.write(Data("\(workload) \(objects): \(ContinuousClock.now - started)\n".utf8))
            return
        }
        let fixture = store == "postgres"
            ? try await LibraryStrataPeer.postgresFixture(objects: objects)
            : try await LibraryStrataPeer.fixture(objects: objects, sqlite: store == "sqlite")
        let url = store == "postgres" || !workload.contains("change") ? fixture : try Fixtures.scratchCopy(of: fixture)
        let context = try await LibraryStrataPeer.open(url)
        let started = ContinuousClock.now
        let result: String
        switch workload.split(separator: "-")[1] {
        case "page": result = "\(try await LibraryStrataPeer.readPages(context))"
        case "walk": result = "\(try await LibraryStrataPeer.walkAuthors(context))"
        case "change": result = "\(try await LibraryStrataPeer.changeOnePercent(context))"
        default:
            FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
            exit(2)
        }
        FileHandle.standardError.write(Data("\(workload) \(objects): \(ContinuousClock.now - started) (\(result))\n".utf8))
    }
}
