import Foundation

/// Runs a program to its end and captures what it printed: the one way the test targets run
/// the `strata` tool, the samples and the Python reader of Core Data stores.
public struct ChildProcess: Sendable {
    private static let launching = NSLock()

    public var status: Int32
    public var output: Data
    public var errors: Data

    public static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // Foundation's Process.run() on Linux is not safe to call from two threads at once (it
        // was seen to crash in memcpy while the tests spawned several readers in parallel):
        // starting is serialised; the children still run side by side.
        try launching.withLock { try process.run() }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let reported = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ChildProcess(status: process.terminationStatus, output: printed, errors: reported)
    }
}
