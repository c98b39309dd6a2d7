import Foundation
import Logging
import PostgresNIO
import StrataPostgres

/// The PostgreSQL server the tests run the Postgres store on: `STRATA_POSTGRES_URL`
/// (`scripts/test` starts a throwaway cluster and sets it; set it yourself to use another
/// server, where the tests make and drop schemas named `strata_t<pid>_<n>`). Without it the
/// Postgres cases are left out, unless `STRATA_REQUIRE_POSTGRES=1` (CI), which fails instead.
public enum PostgresTestServer {
    public static let url: String? = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    public static let isRequired = ProcessInfo.processInfo.environment["STRATA_REQUIRE_POSTGRES"] == "1"
    public static var isAvailable: Bool {
        PostgresStore.register()
        return url != nil
    }

    private static let counter = Counter()

    /// A store URL with a schema of its own, not yet made. The first call drops the schemas of
    /// test processes that have ended.
    public static func newStoreURL() async throws -> URL {
        guard let url else { throw PostgresStoreError(.invalidURL, "STRATA_POSTGRES_URL is not set") }
        try await Sweeper.shared.sweepOnce()
        let schema = "strata_t\(getpid())_\(counter.next())"
        guard let storeURL = URL(string: url + (url.contains("?") ? "&" : "?") + "schema=" + schema) else {
            throw PostgresStoreError(.invalidURL, "STRATA_POSTGRES_URL is not a URL")
        }
        return storeURL
    }

    /// Drops the schema of a store URL `newStoreURL()` gave.
    public static func dropSchema(of storeURL: URL) async throws {
        guard let schema = URLComponents(url: storeURL, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "schema" })?.value
        else { return }
        try await execute("DROP SCHEMA IF EXISTS \"\(schema.replacingOccurrences(of: "\"", with: "\"\""))\" CASCADE")
    }

    /// Runs one statement on the test server.
    public static func execute(_ sql: String) async throws {
        let connection = try await connect()
        defer { Task { try? await connection.close() } }
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).get()
    }

    /// The test server's rows for `sql`, each as text columns.
    public static func rows(_ sql: String) async throws -> [[String?]] {
        let connection = try await connect()
        defer { Task { try? await connection.close() } }
        var rows: [[String?]] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
            rows.append(try row.map { cell in try cell.decode(String?.self) })
        }
        return rows
    }

    private static let logger = Logger(label: "strata.tests.postgres")

    private static func connect() async throws -> PostgresConnection {
        guard let url, let storeURL = URL(string: url) else { throw PostgresStoreError(.invalidURL, "no test server") }
        return try await PostgresConnection.connect(configuration: try PostgresLocation(url: storeURL).configuration(), id: 1, logger: logger)
    }

    /// Drops the schemas of test processes that have ended, once per process.
    private actor Sweeper {
        static let shared = Sweeper()
        private var done = false

        func sweepOnce() async throws {
            guard !done else { return }
            done = true
            for row in try await rows("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'strata\\_t%\\_%'") {
                guard let name = row.first ?? nil, let pid = Int32(name.dropFirst("strata_t".count).prefix { $0 != "_" }),
                    kill(pid, 0) != 0, errno == ESRCH
                else { continue }
                try await execute("DROP SCHEMA IF EXISTS \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\" CASCADE")
            }
        }
    }

    private final class Counter: Sendable {
        private let value = Locked(0)
        func next() -> Int {
            value.withLock { value in
                value += 1
                return value
            }
        }
    }
}

/// A PostgreSQL cluster of a test's own (`scripts/postgres-server`), for a test that restarts
/// its server: the shared test server must stay up for the tests running beside it.
public final class PrivatePostgresCluster: Sendable {
    public let url: String
    public let folder: String
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-server")

    /// Whether this machine has PostgreSQL's server programs.
    public static var canStart: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
    }

    private init(url: String, folder: String) {
        self.url = url
        self.folder = folder
    }

    /// Starts a cluster, runs `body` on it, and stops it (and removes its folder) whether or
    /// not `body` threw.
    public static func with<Result: Sendable>(_ body: (PrivatePostgresCluster) async throws -> Result) async throws -> Result {
        let output = try await run(["start"])
        func value(_ name: String) -> String? {
            output.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }
                .map { String($0.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        }
        guard let url = value("STRATA_POSTGRES_URL"), let folder = value("STRATA_POSTGRES_CLUSTER") else {
            throw PostgresStoreError(.unreachable, "scripts/postgres-server start printed no URL: \(output)")
        }
        let cluster = PrivatePostgresCluster(url: url, folder: folder)
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await body(cluster)) } catch { result = .failure(error) }
        _ = try? await run(["stop", folder])
        return try result.get()
    }

    /// Restarts the cluster (`pg_ctl restart -m fast`), and waits until it answers.
    public func restart() async throws {
        _ = try await Self.run(["restart", folder])
    }

    /// Runs the script with its output in a file: the server it starts outlives it, and a pipe
    /// would be held open by it.
    private static func run(_ arguments: [String]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-server-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await ChildProcess.run(script, arguments, writingTo: file)
        guard result.status == 0 else { throw PostgresStoreError(.unreachable, "scripts/postgres-server \(arguments[0]) failed") }
        return String(decoding: result.output, as: UTF8.self)
    }
}
