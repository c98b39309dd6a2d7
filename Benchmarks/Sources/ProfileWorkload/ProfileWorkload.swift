import Foundation
import Workloads

/// Runs one Strata SQLite workload once, outside the benchmark harness, for a profiler
/// (`valgrind --tool=callgrind`, `perf record`) to look at:
///
///     profile-workload insert|fetch|update|lookups N
///
/// The fixture it starts from is made first (and kept in `STRATA_BENCH_FIXTURES`), outside what
/// `STRATA_PROFILE_START` marks; a profiler attached from the start sees both.
@main enum ProfileWorkload {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let workload = arguments.first, let count = arguments.dropFirst().first.flatMap(Int.init) else {
            FileHandle.standardError.write(Data("usage: profile-workload insert|fetch|update|lookups N\n".utf8))
            exit(2)
        }
        let fixture = try await StrataPeer.fixture(count: count, sqlite: true)
        let started = ContinuousClock.now
        switch workload {
        case "insert":
            let url = try Fixtures.scratchFolder().appendingPathComponent("people.sqlite")
            let context = try await StrataPeer.open(url)
            try await StrataPeer.insert(PersonRecord.generate(count: count), into: context)
            try await StrataPeer.save(context)
        case "fetch":
            _ = try await StrataPeer.fetchAll(StrataPeer.open(fixture))
        case "update":
            try await StrataPeer.updateTenthAndSave(StrataPeer.open(Fixtures.scratchCopy(of: fixture)))
        case "lookups":
            _ = try await StrataPeer.lookUp(PersonRecord.lookupEmails(count: 1_000, among: count), in: StrataPeer.open(fixture))
        default:
            FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
            exit(2)
        }
        FileHandle.standardError.write(Data("\(workload) \(count): \(ContinuousClock.now - started)\n".utf8))
    }
}
