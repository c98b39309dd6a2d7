import ArgumentParser
import Strata

/// `strata predicate 'FORMAT'`: parses a predicate and prints its normalised form, or the
/// parse error with a caret under its column (exit status 1).
struct ParsePredicate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicate", abstract: "Parse a predicate and print its normalised form.")

    @Argument(help: "A predicate in Core Data's format-string syntax.")
    var format: String

    func run() throws {
        do {
            print(try FetchPredicate(format: format))
        } catch let error as FetchPredicateError {
            var report = "Error: \(error.message)\n  \(format)"
            if let column = error.column { report += "\n  " + String(repeating: " ", count: max(column - 1, 0)) + "^" }
            throw CommandFailure(String(report.dropFirst("Error: ".count)))
        }
    }
}
