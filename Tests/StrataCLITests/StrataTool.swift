import Foundation
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
        get throws {
            let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for candidate in [directory, directory.deletingLastPathComponent()] {
                let url = candidate.appendingPathComponent("strata")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            Issue.record("no strata binary beside \(directory.path): build it first (scripts/test does)")
            throw CancellationError()
        }
    }

    static func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = try binary
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}
