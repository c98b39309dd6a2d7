import Foundation

/// The "many app servers" workload: `processes` processes (`postgres-writer`, built beside the
/// benchmarks) write their shares of `count` people to one PostgreSQL store at once, 100 per
/// save; the measure is the time until the last one is done.
public enum PostgresWriters {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs the writers through `peer` (`strata` on the store at `target`, a URL, or
    /// `postgres-nio` on the schema `target`) and waits for them all.
    public static func run(_ peer: String, _ target: String, processes: Int, count: Int, batch: Int = 100) async throws {
        // Beside the running benchmark binary (whose argv[0] may be a bare name).
        let folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")).resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = folder.appendingPathComponent("postgres-writer")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Failed(description: "\(executable.path) is not built: run scripts/bench, which builds every product")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<processes {
                let process = Process()
                process.executableURL = executable
                process.arguments = [peer, target, "\(index)", "\(processes)", "\(count)", "\(batch)"]
                group.addTask {
                    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                        do {
                            try process.run()
                        } catch {
                            process.terminationHandler = nil
                            continuation.resume(throwing: error)
                        }
                    }
                    if status != 0 { throw Failed(description: "postgres-writer \(peer) \(index) exited with status \(status)") }
                }
            }
            try await group.waitForAll()
        }
    }
}
