import Foundation
import Strata
import Synchronization

/// Shows migration progress: a bar redrawn in place on a terminal, plain lines otherwise.
final class ProgressMeter: Sendable {
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private let lastLine = Mutex<String>("")

    func show(_ progress: MigrationProgress) {
        let line: String
        if let total = progress.totalObjects, total > 0, isTerminal {
            let filled = min(30, progress.objectsDone * 30 / total)
            line = "\r  \(progress.stage) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] \(progress.objectsDone)/\(total)"
        } else {
            line = "  \(progress)\n"
        }
        lastLine.withLock { last in
            guard line != last else { return }
            last = line
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }

    func finish() {
        if isTerminal { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
