import Foundation
import StrataTestSupport
import Testing

/// Runs the built `strata` binary, as a user would, and captures what it prints.
enum StrataTool {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `strata` binary built beside this test bundle.
    static var binary: URL {
        get throws { try product("strata") }
    }

    /// An executable product built beside this test bundle.
    static func product(_ name: String) throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        Issue.record("no \(name) binary beside \(directory.path): build it first (scripts/test does)")
        throw CancellationError()
    }

    static func run(_ arguments: String...) async throws -> Result {
        try await run(arguments)
    }

    static func run(_ arguments: [String], product: String = "strata") async throws -> Result {
        let result = try await ChildProcess.run(try Self.product(product), arguments, in: packageRoot)
        return Result(
            status: result.status, output: String(decoding: result.output, as: UTF8.self),
            errors: String(decoding: result.errors, as: UTF8.self))
    }
}
