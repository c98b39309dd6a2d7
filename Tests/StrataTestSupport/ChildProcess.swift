import Foundation
import Subprocess
import SystemPackage

/// Runs a program and captures what it printed: the one way the test targets start a process
/// (the `strata` tool, the samples, the crash helper, the Python readers of Core Data's files,
/// the PostgreSQL server script).
///
/// Built on swift-subprocess rather than Foundation's `Process`: on Linux (Swift 6.3.1)
/// `Process.run()` lists `/proc/self/fd` with a read past the end of each directory entry and
/// crashes the test process at random (swift-corelibs-foundation#5472), which took a whole
/// test run down with it. Subprocess closes the inherited descriptors with
/// `posix_spawn_file_actions_addclosefrom_np` and reads no directory.
public struct ChildProcess: Sendable {
    /// The exit status; when a signal ended the process, 128 plus its number, as a shell says.
    public var status: Int32
    /// The signal that ended the process, if one did.
    public var signal: Int32?
    /// What it wrote to its standard output.
    public var output: Data
    /// What it wrote to its standard error (empty for ``killed(_:_:in:after:waitingForOutput:)``,
    /// whose child writes its standard error to the test's).
    public var errors: Data

    /// More than any program the tests run prints; Subprocess needs a bound on what it collects.
    private static let outputLimit = 256 * 1024 * 1024

    /// Runs the program to its end.
    public static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil) async throws -> ChildProcess {
        let result = try await Subprocess.run(
            .path(FilePath(executable.path)), arguments: Arguments(arguments),
            workingDirectory: directory.map { FilePath($0.path) },
            output: .data(limit: outputLimit), error: .data(limit: outputLimit))
        return ChildProcess(result.terminationStatus, output: result.standardOutput, errors: result.standardError)
    }

    /// Runs the program to its end with its standard output in `file` (standard error is
    /// dropped): for a program that leaves a server running, which would hold a pipe open.
    public static func run(_ executable: URL, _ arguments: [String], writingTo file: URL) async throws -> ChildProcess {
        let descriptor = try FileDescriptor.open(FilePath(file.path), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let result = try await Subprocess.run(
            .path(FilePath(executable.path)), arguments: Arguments(arguments),
            output: .fileDescriptor(descriptor, closeAfterSpawningProcess: true), error: .discarded)
        return ChildProcess(result.terminationStatus, output: try Data(contentsOf: file), errors: Data())
    }

    /// Starts the program, waits until it first prints (if `waitingForOutput`), lets it run for
    /// `delay` more, kills it with SIGKILL and reads what it printed up to its end: how the
    /// crash tests interrupt a process at a random moment of its work.
    public static func killed(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil,
        after delay: Duration, waitingForOutput: Bool = true
    ) async throws -> ChildProcess {
        let result = try await Subprocess.run(
            .path(FilePath(executable.path)), arguments: Arguments(arguments),
            workingDirectory: directory.map { FilePath($0.path) },
            input: .none, output: .sequence, error: .currentStandardError
        ) { execution in
            var printed = Data()
            var chunks = execution.standardOutput.makeAsyncIterator()
            if waitingForOutput, let first = try await chunks.next() { printed.append(Data(buffer: first)) }
            try await Task.sleep(for: delay)
            // A process that ended on its own meanwhile cannot be signalled; its status says so.
            try? execution.send(signal: .kill)
            while let chunk = try await chunks.next() { printed.append(Data(buffer: chunk)) }
            return printed
        }
        return ChildProcess(result.terminationStatus, output: result.closureResult, errors: Data())
    }

    private init(_ termination: TerminationStatus, output: Data, errors: Data) {
        switch termination {
        case .exited(let code):
            status = code
            signal = nil
        case .signaled(let number):
            status = 128 + number
            signal = number
        }
        self.output = output
        self.errors = errors
    }
}
