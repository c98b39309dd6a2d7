import Foundation

/// Files that several benchmarks start from, made once per size and kept on disk: each
/// benchmark runs in a process of its own, and a 1,000,000-person store takes seconds to make.
///
/// `scripts/bench` empties the folder before a run, so that no file from an older build is read.
public enum Fixtures {
    public static let folder: URL = {
        let path = ProcessInfo.processInfo.environment["STRATA_BENCH_FIXTURES"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-fixtures").path
        return URL(fileURLWithPath: path)
    }()

    /// The file `name` for `count` people, made by `make` if it is not there yet. `make` writes
    /// to the URL it is given; the file is renamed into place only once whole.
    public static func file(_ name: String, count: Int, make: (URL) async throws -> Void) async throws -> URL {
        let directory = folder.appendingPathComponent("\(count)")
        let url = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = directory.appendingPathComponent("partial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: partial) }
        let made = partial.appendingPathComponent(name)
        try await make(made)
        try FileManager.default.moveItem(at: made, to: url)
        return url
    }

    /// A copy of `url` in a new scratch folder, for a workload that changes its store.
    public static func scratchCopy(of url: URL) throws -> URL {
        let copy = try scratchFolder().appendingPathComponent(url.lastPathComponent)
        try FileManager.default.copyItem(at: url, to: copy)
        return copy
    }

    /// A new empty folder under the fixtures folder; `scripts/bench` removes them all.
    public static func scratchFolder() throws -> URL {
        let url = folder.appendingPathComponent("scratch").appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
