import Foundation
import Strata
import StrataTestSupport
import Testing

/// The same graph saved into the coordinator's in-memory tables and into a SQLite store, asked
/// the same seeded random predicates: both give the same objects (by entity and reference
/// number, which both hand out alike for the same inserts). `STRATA_FUZZ_SEED` replays a run.
@Suite struct StoreAgreementTests {
    static let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)

    @Test func randomPredicatesFetchTheSameObjectsFromBothStores() async throws {
        print("StoreAgreementTests: STRATA_FUZZ_SEED=\(Self.seed)")
        var random = SplitMix64(seed: Self.seed)
        let memory = try await PredicateTests.graph(.inMemory).0
        let sqlite = try await PredicateTests.graph(.sqlite).0
        var compared = 0, nonEmpty = 0
        for _ in 0..<300 {
            let format = Self.predicate(depth: 0, using: &random)
            // Every object, then a sorted window of them (which the SQLite store may answer in
            // SQL), then their count: each the same from both stores.
            let window = (offset: Int.random(in: 0...2, using: &random), limit: Int.random(in: 0...3, using: &random))
            let sort: [FetchSortDescriptor] = Bool.random(using: &random)
                ? [.descending("pages"), .ascending("title")] : [.ascending("title")]
            func fetch(_ coordinator: PersistentStoreCoordinator) async throws -> [String] {
                try await backgroundContext(coordinator).perform { context in
                    var request = FetchRequest<Book>()
                    request.predicate = try FetchPredicate(format: format)
                    let all = try context.fetch(request).map { "\($0.objectID.entityName)/\($0.objectID.referenceNumber ?? -1)" }.sorted()
                    request.sortDescriptors = sort
                    (request.fetchOffset, request.fetchLimit) = window
                    let windowed = try context.fetch(request).map { "\($0.title)" }
                    return all + ["|"] + windowed + ["|", "\(try context.count(for: request))"]
                }
            }
            let expected = try await fetch(memory)
            #expect(try await fetch(sqlite) == expected, "\(format) (seed \(Self.seed))")
            compared += 1
            if expected.first != "|" { nonEmpty += 1 }
        }
        #expect(compared == 300)
        #expect(nonEmpty > 30, "the predicates match something often enough to tell the stores apart")
    }

    /// A predicate on books: comparisons of attributes, to-one and to-many key paths, joined by
    /// AND, OR and NOT.
    static func predicate(depth: Int, using random: inout SplitMix64) -> String {
        if depth < 2, Int.random(in: 0..<3, using: &random) == 0 {
            let join = ["AND", "OR"][Int.random(in: 0..<2, using: &random)]
            let left = predicate(depth: depth + 1, using: &random), right = predicate(depth: depth + 1, using: &random)
            return Bool.random(using: &random) ? "(\(left) \(join) \(right))" : "NOT (\(left) \(join) \(right))"
        }
        let pages = [0, 183, 249, 280, 400, 474, 592, 880, 1000][Int.random(in: 0..<9, using: &random)]
        // "Émile" in both of Unicode's forms: strings compare by their scalars on every store.
        let words = ["Emma", "e", "a", "Middlemarch", "N", "Jane", "classic", "french", "zzz", "\u{C9}mile", "E\u{301}mile"]
        let word = words[Int.random(in: 0..<words.count, using: &random)]
        let comparisons = [
            "pages < \(pages)", "pages >= \(pages)", "pages == \(pages)", "pages BETWEEN {\(pages), \(pages + 300)}",
            "title BEGINSWITH '\(word)'", "title CONTAINS[c] '\(word)'", "title == '\(word)'",
            "author.name CONTAINS[cd] '\(word)'", "author.born < CAST(0, 'NSDate')", "author.born == nil",
            "ANY tags.label == '\(word)'", "tags.@count >= \(pages % 3)", "SUBQUERY(tags, $t, $t.label BEGINSWITH '\(word)').@count > 0",
            "author.books.@count > \(pages % 4)",
            // What the SQLite store compiles to SQL, and its edges: nil, NOT, lists, patterns, to-one paths.
            "pages != \(pages)", "NOT pages > \(pages)", "pages IN {183, \(pages), 592}", "title != '\(word)'", "title < '\(word)'",
            "title >= '\(word)'", "title IN {'Emma', '\(word)'}", "title LIKE[c] '*\(word)*'", "title ENDSWITH 'a'",
            "title MATCHES '.*\(word).*'", "title BEGINSWITH[cd] '\(word)'", "author == nil", "author != nil",
            "author.name == '\(word)'", "author.name != '\(word)'", "author.name BEGINSWITH '\(word)'", "author.born == nil",
            "author.born != nil", "\(pages) > pages", "'\(word)' == title", "TRUEPREDICATE", "FALSEPREDICATE",
            "ALL tags.label != '\(word)'", "NONE tags.label == '\(word)'", "ANY tags.label BEGINSWITH[c] '\(word)'",
            "tags.label == '\(word)'", "tags.label != '\(word)'", "ANY author.books.pages > \(pages)", "author.books.title == '\(word)'",
            "ALL tags.label IN {'classic', '\(word)'}", "tags.@count == \(pages % 3)", "tags.@count < \(pages % 4)",
            "NOT (ANY tags.label == '\(word)')", "tags.label CONTAINS '\(word)'", "ANY tags.label CONTAINS '\(word)'",
            "ALL author.books.pages > \(pages)", "SUBQUERY(tags, $t, $t.label == '\(word)' OR $t.label BEGINSWITH 'c').@count == 1",
            "SUBQUERY(tags, $t, NOT $t.label CONTAINS[c] '\(word)').@count >= \(pages % 3)",
            "SUBQUERY(author.books, $b, $b.pages > \(pages)).@count > 0", "SUBQUERY(tags, $t, $t.label == title).@count == 0",
        ]
        return comparisons[Int.random(in: 0..<comparisons.count, using: &random)]
    }
}
