import Foundation
import Strata
import StrataTestSupport
import Testing

/// Predicates as Core Data code builds them from arguments (issue 33): `%K` inside key paths
/// (`ANY %K.%K == %@`, `%K.%K`, `$x.%K` in a subquery), and the integer and floating-point
/// specifiers `String(format:)` reads (`%lli`, `%li`, `%hhd`, `%zu`, `%a`, `%la`), as
/// `NSPredicate(format:argumentArray:)` takes them. Checked on the fetch (in memory and in
/// SQL) of `PredicateTests`'s six books.
@Suite struct PredicateArgumentTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let format: String
        let arguments: [any Sendable]
        let normalized: String
        let matches: [String]
        var testDescription: String { format }
    }

    static let cases: [Case] = [
        Case(format: "%K.%K ENDSWITH %@", arguments: ["author", "name", "Zola"], normalized: "author.name ENDSWITH \"Zola\"", matches: ["Germinal", "Nana"]),
        Case(format: "ANY %K.%K == %@", arguments: ["tags", "label", "gothic"], normalized: "ANY tags.label == \"gothic\"", matches: ["Frankenstein"]),
        Case(format: "%K.%K.@count == %lli", arguments: ["author", "books", Int64(2)], normalized: "author.books.@count == 2", matches: ["Emma", "Germinal", "Nana", "Persuasion"]),
        Case(
            format: "SUBQUERY(%K, $t, $t.%K BEGINSWITH %@).@count > 0", arguments: ["tags", "label", "fr"],
            normalized: "SUBQUERY(tags, $t, $t.label BEGINSWITH \"fr\").@count > 0", matches: ["Germinal", "Nana"]),
        Case(format: "%K > %li AND %K < %hhd", arguments: ["pages", 400, "pages", Int8(100)], normalized: "pages > 400 AND pages < 100", matches: []),
        Case(format: "pages >= %zu", arguments: [UInt(592)], normalized: "pages >= 592", matches: ["Germinal", "Middlemarch"]),
        Case(format: "pages < %a OR pages > %la", arguments: [250.0, 800.0], normalized: "pages < 250.0 OR pages > 800.0", matches: ["Middlemarch", "Persuasion"]),
    ]

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func argumentsBuildThePredicatesCoreDataCodeBuilds(_ kind: StoreKind) async throws {
        let (coordinator, _) = try await PredicateTests.graph(kind)
        for test in Self.cases {
            let predicate = try FetchPredicate(format: test.format, argumentArray: test.arguments)
            #expect(predicate.description == test.normalized, "\(test.format)")
            let titles = try await backgroundContext(coordinator).perform { context in
                try context.fetch(FetchRequest<Book>(predicate: predicate)).map(\.title).sorted()
            }
            #expect(titles == test.matches.sorted(), "\(test.format)")
        }
    }

    /// Code builds one predicate with new arguments in a loop; the parser keeps the tokens of
    /// formats it lexed lately. Each parse still takes its own arguments, of whatever type.
    @Test func oneFormatTakesNewArgumentsAtEachParse() throws {
        var generator = SplitMix64(seed: 0x5EED_F0)
        for round in 0..<500 {
            let format = ["title == %@", "pages > %@ AND title != %@", "%K == %@"][round % 3]
            let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in "ab\"é %@".randomElement(using: &generator)! })
            let number = Int.random(in: -1_000_000...1_000_000, using: &generator)
            let value: any Sendable = [text, number, Int8(truncatingIfNeeded: number), Double(number) / 8, number % 2 == 0][round % 5]
            let expected: PredicateValue =
                switch value {
                case let value as String: .string(value)
                case let value as Int: .integer(Int64(value))
                case let value as Int8: .integer(Int64(value))
                case let value as Double: .double(value)
                case let value as Bool: .bool(value)
                default: .null
                }
            switch round % 3 {
            case 0:
                #expect(try FetchPredicate(format: format, value) == .compare(.keyPath("title"), .equal, .constant(expected)))
            case 1:
                #expect(
                    try FetchPredicate(format: format, value, text)
                        == .and([.compare(.keyPath("pages"), .greaterThan, .constant(expected)), .compare(.keyPath("title"), .notEqual, .constant(.string(text)))]))
            default:
                #expect(try FetchPredicate(format: format, "pages", value) == .compare(.keyPath("pages"), .equal, .constant(expected)))
            }
        }
    }

    @Test func aFormatThatDoesNotParseFailsAtEachParse() {
        for _ in 0..<3 {
            #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "title == \"open", "x") }
            #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "title == %@ AND", "x") }
        }
    }

    @Test func aKeyPathArgumentMustBeAString() {
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "ANY tags.%K == %@", argumentArray: [3, "x"]) }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "pages > %lli", argumentArray: ["many"]) }
    }
}
