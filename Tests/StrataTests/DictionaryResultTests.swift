import Foundation
import Strata
import Testing

/// Dictionary results as Core Data gives them (issue 30, item 2): they reflect the store, not
/// the context's unsaved changes (Core Data's documentation of `includesPendingChanges`: with
/// the dictionary result type, pending insertions, updates and deletions are not taken into
/// account); an aggregate without `propertiesToGroupBy` gives one result over every matching
/// object; a to-many relationship cannot be fetched into one.
@Suite struct DictionaryResultTests {
    static func storeWithBooks(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            for (title, pages) in [("Emma", 20), ("Persuasion", 37)] {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
            }
            try context.save()
        }
        return coordinator
    }

    @Test(arguments: StoreKind.queryable)
    func dictionaryResultsIgnoreUnsavedChanges(_ kind: StoreKind) async throws {
        let coordinator = try await Self.storeWithBooks(kind)
        let titles = try await backgroundContext(coordinator).perform { context in
            let unsaved = try Book(context: context)
            unsaved.title = "Unsaved"
            for book in try context.fetch(FetchRequest<Book>()) where book.title == "Emma" { book.title = "Changed" }
            var request = FetchRequest<Book>(sortDescriptors: [.ascending("title")])
            request.propertiesToFetch = [.key("title")]
            return try context.fetchDictionaries(request).compactMap { $0["title"] as? String }
        }
        #expect(titles == ["Emma", "Persuasion"])
    }

    @Test(arguments: StoreKind.queryable)
    func anAggregateWithoutGroupingGivesOneResult(_ kind: StoreKind) async throws {
        let coordinator = try await Self.storeWithBooks(kind)
        let (all, none) = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.propertiesToFetch = [
                ExpressionDescription(name: "total", expression: try ValueExpression(format: "sum:(pages)")),
                ExpressionDescription(name: "count", expression: try ValueExpression(format: "count:(title)")),
            ]
            let all = try context.fetchDictionaries(request)
            request.predicate = try FetchPredicate(format: "pages > 1000")
            return (all, try context.fetchDictionaries(request))
        }
        #expect(all.count == 1)
        #expect(all.first?["total"] as? Int64 == 57)
        #expect(all.first?["count"] as? Int64 == 2)
        #expect(none.count == 1, "an aggregate over no object is still one result")
    }

    @Test func aToManyRelationshipOrAMixWithoutGroupingIsRefused() async throws {
        let coordinator = try await Self.storeWithBooks(.inMemory)
        try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.propertiesToFetch = [.key("tags")]
            let toMany = #expect(throws: PersistenceError.self) { try context.fetchDictionaries(request) }
            #expect(toMany?.code == .unsupportedRequest)
            request.propertiesToFetch = [.key("title"), ExpressionDescription(name: "total", expression: try ValueExpression(format: "sum:(pages)"))]
            let mixed = #expect(throws: PersistenceError.self) { try context.fetchDictionaries(request) }
            #expect(mixed?.message.contains("propertiesToGroupBy") == true)
        }
    }
}
