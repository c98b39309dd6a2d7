import ArgumentParser
import Foundation
import Strata

/// `strata predicate 'FORMAT'`: parses a predicate as code writes it and prints its normalised
/// form, or the parse error with a caret under its column (exit status 1). Argument specifiers
/// (`%@`, `%K`, `%d`…) stay in place unless `--arg` or `--args` gives them values, in order;
/// `%K` takes a key path.
struct ParsePredicate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicate", abstract: "Parse a predicate and print its normalised form.")

    @Argument(help: "A predicate in Core Data's format-string syntax, specifiers (%@, %K, %d…) and all.")
    var format: String

    @Option(name: .customLong("arg"), help: "A value for the next specifier: JSON (5, true, null, \"text\") or else text. Repeatable.")
    var values: [String] = []

    @Option(help: "Values for the specifiers, in order, as a JSON array.")
    var args: String?

    func run() throws {
        var arguments = values.map(Self.value)
        if let args {
            guard let array = try? JSONSerialization.jsonObject(with: Data(args.utf8), options: [.fragmentsAllowed]) as? [Any] else {
                throw ValidationError("--args must be a JSON array, such as '[\"name\", 3]'")
            }
            arguments += array.map(Self.normalised)
        }
        do {
            print(try FetchPredicate(formatWithPlaceholders: format, arguments: arguments))
        } catch let error as FetchPredicateError {
            var report = "\(error.message)\n  \(format)"
            if let column = error.column { report += "\n  " + String(repeating: " ", count: max(column - 1, 0)) + "^" }
            throw CommandFailure(report)
        }
    }

    /// An `--arg`: a JSON scalar when it reads as one, else the text itself.
    static func value(_ text: String) -> Any {
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return text }
        return normalised(json)
    }

    /// JSON values as the parser takes arguments: integers as Int64, other numbers as Double,
    /// booleans as Bool, arrays element by element; null stays NSNull (the parser's nil).
    static func normalised(_ json: Any) -> Any {
        switch json {
        case let array as [Any]: return array.map(normalised)
        case let number as NSNumber where String(cString: number.objCType) == "c": return number.boolValue
        case let number as NSNumber: return Int64(exactly: number.doubleValue) ?? number.doubleValue
        default: return json
        }
    }
}
