import Foundation
import Strata
import StrataTestSupport
import Testing

/// Sort descriptors with a comparison selector, as Core Data code writes them
/// (`NSSortDescriptor(key: "title", ascending: true, selector: #selector(NSString.localizedStandardCompare(_:)))`;
/// issue 33). Apple's `NSSortDescriptor` documentation: the selector is the method sent to
/// each value to compare it with another; Core Data's SQLite store sorts by `compare:`,
/// `caseInsensitiveCompare:`, `localizedCompare:`, `localizedCaseInsensitiveCompare:` and
/// `localizedStandardCompare:`. Each fetch must order as Foundation's string method of that
/// name does, whatever store holds the objects and whether they are saved.
@Suite struct SortSelectorTests {
    /// Foundation's method for each comparison: what the fetch is checked against.
    static let methods: [(SortComparison, @Sendable (String, String) -> ComparisonResult)] = [
        // By code point, as Core Data's SQLite store sorts (BINARY), not NSString's method.
        (.compare, { $0.unicodeScalars.elementsEqual($1.unicodeScalars) ? .orderedSame
            : $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars, by: { $0.value < $1.value }) ? .orderedAscending : .orderedDescending }),
        (.caseInsensitiveCompare, { $0.caseInsensitiveCompare($1) }),
        (.localizedCompare, { $0.localizedCompare($1) }),
        (.localizedCaseInsensitiveCompare, { $0.localizedCaseInsensitiveCompare($1) }),
        (.localizedStandardCompare, { $0.localizedStandardCompare($1) }),
    ]

    /// Titles whose orders differ between the comparisons: case, accents, digits of several
    /// lengths, punctuation. Distinct under every comparison, so each order is one order.
    static func titles(seed: UInt64, count: Int) -> [String] {
        var random = SplitMix64(seed: seed)
        let stems = ["file", "File", "éclair", "Eclair", "apple", "Zebra", "zebra", "ångström", "Book-", "book "]
        var titles: [String] = []
        var seen = Set<String>()
        while titles.count < count {
            let title = stems.randomElement(using: &random)! + String(Int.random(in: 0...120, using: &random))
            // Distinct even ignoring case and accents, so no two titles tie under any comparison.
            let key = title.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            if seen.insert(key).inserted { titles.append(title) }
        }
        return titles
    }

    @Test(arguments: StoreKind.queryable)
    func aFetchOrdersAsTheSelectorsStringMethod(_ kind: StoreKind) async throws {
        for seed in UInt64(1)...3 {
            let coordinator = try await makeCoordinator(libraryModel(), kind)
            let titles = Self.titles(seed: seed, count: 40)
            let fetched = try await backgroundContext(coordinator).perform { context in
                for (index, title) in titles.enumerated() {
                    let book = try Book(context: context)
                    book.title = title
                    book.pages = index
                    // Half saved, half still in the context: both are sorted together.
                    if index == titles.count / 2 { try context.save() }
                }
                var orders: [[String]] = []
                for (comparison, _) in Self.methods {
                    for ascending in [true, false] {
                        var request = FetchRequest<Book>()
                        request.sortDescriptors = [FetchSortDescriptor(key: "title", ascending: ascending, selector: comparison)]
                        orders.append(try context.fetch(request).map(\.title))
                    }
                }
                try context.save()
                // Saved only, with a limit: the store must not sort and window by its own order.
                for (comparison, _) in Self.methods {
                    var request = FetchRequest<Book>()
                    request.sortDescriptors = [FetchSortDescriptor(key: "title", selector: comparison)]
                    request.fetchLimit = 5
                    orders.append(try context.fetch(request).map(\.title))
                }
                return orders
            }
            var expected: [[String]] = []
            for (_, method) in Self.methods {
                let ascending = titles.sorted { method($0, $1) == .orderedAscending }
                expected += [ascending, ascending.reversed()]
            }
            for (_, method) in Self.methods {
                expected.append(Array(titles.sorted { method($0, $1) == .orderedAscending }.prefix(5)))
            }
            #expect(fetched == expected, "seed \(seed)")
        }
    }

    /// The descriptor keeps the selector as Core Data's `selector` property does, from a key
    /// or a Swift key path; without one it compares by `compare:`.
    @Test func aDescriptorKeepsItsSelector() {
        let byKeyPath = FetchSortDescriptor(keyPath: \Book.title, ascending: false, selector: .caseInsensitiveCompare)
        #expect((byKeyPath.key, byKeyPath.ascending, byKeyPath.selector) == ("title", false, .caseInsensitiveCompare))
        #expect(FetchSortDescriptor(key: "title").selector == .compare)
        #expect(FetchSortDescriptor(key: "title", selector: .localizedStandardCompare) != FetchSortDescriptor(key: "title"))
        #expect(SortComparison.localizedStandardCompare.selectorName == "localizedStandardCompare:")
    }

    /// A fetched results controller keeps its objects in the selector's order as they change.
    @Test func aControllerPlacesAChangedObjectByTheSelector() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        try await backgroundContext(coordinator).perform { context in
            for title in ["file10", "File2", "file1"] {
                let book = try Book(context: context)
                book.title = title
            }
            try context.save()
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [FetchSortDescriptor(key: "title", selector: .localizedStandardCompare)]),
                managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["file1", "File2", "file10"])
            let book = try Book(context: context)
            book.title = "file3"
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(\.title) == ["file1", "File2", "file3", "file10"])
        }
    }
}
