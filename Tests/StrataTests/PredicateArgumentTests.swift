import Foundation
import Strata
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

    @Test func aKeyPathArgumentMustBeAString() {
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "ANY tags.%K == %@", argumentArray: [3, "x"]) }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "pages > %lli", argumentArray: ["many"]) }
    }
}
