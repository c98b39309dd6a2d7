import Foundation
@testable import Strata
import Testing

/// Fetch requests typed as Core Data code types them (issue 33): `NSFetchRequest<NSDictionary>`,
/// `<NSManagedObjectID>`, `<NSNumber>` and `<NSFetchRequestResult>` with a `resultType` (Core
/// Data's `NSFetchRequestResultType`: objects, object IDs, dictionaries, a count), counted with
/// `count(for:)` and handed to `NSBatchDeleteRequest(fetchRequest:)`.
@Suite struct FetchResultTypeTests {
    static func books(_ context: isolated ManagedObjectContext) throws {
        for (title, pages) in [("Emma", 20), ("Persuasion", 37), ("Sanditon", 5)] {
            let book = try Book(context: context)
            book.title = title
            book.pages = pages
        }
        try context.save()
    }

    @Test(arguments: StoreKind.queryable)
    func eachResultTypeAsCoreDataCodeAsksForIt(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            try Self.books(context)
            let longer = try FetchPredicate(format: "pages > %d", 10)

            var dictionaries = FetchRequest<NSDictionary>(entityName: "Book", predicate: longer, sortDescriptors: [.ascending("title")])
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["title", "pages"]
            let rows = try context.fetch(dictionaries)
            #expect(rows.compactMap { $0["title"] as? String } == ["Emma", "Persuasion"])
            #expect(rows.compactMap { $0["pages"] as? Int } == [20, 37])

            var ids = FetchRequest<ManagedObjectID>(entityName: "Book", predicate: longer)
            ids.resultType = .managedObjectIDResultType
            #expect(try context.fetch(ids).count == 2)

            var count = FetchRequest<NSNumber>(entityName: "Book")
            count.resultType = .countResultType
            #expect(try context.fetch(count).first?.intValue == 3)

            var untyped = FetchRequest<FetchRequestResult>(entityName: "Book", predicate: longer, sortDescriptors: [.ascending("title")])
            #expect((try context.fetch(untyped) as? [Book])?.map(\.title) == ["Emma", "Persuasion"], "objects by default")
            untyped.resultType = .managedObjectIDResultType
            #expect((try context.fetch(untyped) as? [ManagedObjectID])?.count == 2)
            untyped.resultType = .dictionaryResultType
            untyped.propertiesToFetch = ["title"]
            #expect((try context.fetch(untyped) as? [NSDictionary])?.compactMap { $0["title"] as? String } == ["Emma", "Persuasion"])
            untyped.resultType = .countResultType
            #expect((try context.fetch(untyped) as? [NSNumber])?.first?.intValue == 2)
            #expect(try context.count(for: FetchRequest<FetchRequestResult>(entityName: "Book")) == 3)
            #expect(try context.count(for: FetchRequest<Book>()) == 3)
        }
    }

    @Test(arguments: StoreKind.queryable)
    func aBatchDeleteTakesAFetchRequest(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let left = try await backgroundContext(coordinator).perform { context in
            try Self.books(context)
            let fetch = FetchRequest<FetchRequestResult>(entityName: "Book", predicate: try FetchPredicate(format: "pages < 30"))
            var delete = BatchDeleteRequest(fetchRequest: fetch)
            delete.resultType = .count
            #expect(try context.execute(delete).count == 2)
            context.reset()
            var typed = BatchDeleteRequest(fetchRequest: FetchRequest<Book>(predicate: try FetchPredicate(format: "title == 'Nothing'")))
            typed.resultType = .count
            #expect(try context.execute(typed).count == 0, "a class's request names its entity by the class")
            return try context.fetch(FetchRequest<Book>()).map(\.title)
        }
        #expect(left == ["Persuasion"])
    }

    @Test func aRequestOfNoClassNamesItsEntity() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let error = try await backgroundContext(coordinator).perform { context in
            #expect(throws: PersistenceError.self) { try context.fetch(FetchRequest<NSDictionary>()) }
            return try? context.count(for: FetchRequest<FetchRequestResult>())
        }
        #expect(error == nil)
    }

    /// A request retyped for its result type keeps every property (the copy is written out by
    /// hand: this catches a property added and not copied).
    @Test func aRetypedRequestKeepsEveryProperty() throws {
        var request = FetchRequest<Book>(entityName: "Book", predicate: try FetchPredicate(format: "pages > 1"), sortDescriptors: [.descending("title")])
        request.fetchLimit = 3
        request.fetchOffset = 1
        request.includesSubentities = false
        request.includesPendingChanges = false
        request.fetchBatchSize = 7
        request.returnsObjectsAsFaults = false
        request.shouldRefreshRefetchedObjects = true
        request.includesPropertyValues = false
        request.relationshipKeyPathsForPrefetching = ["author"]
        request.propertiesToFetch = ["title"]
        request.propertiesToGroupBy = ["title"]
        request.havingPredicate = try FetchPredicate(format: "title != nil")
        request.returnsDistinctResults = true
        request.resultType = .countResultType
        request.entity = try libraryModel().entitiesByName["Book"]
        request.affectedStores = []
        request.usesFastPaths = false
        let original = Mirror(reflecting: request).children.map { "\($0.label ?? ""): \($0.value)" }
        let copied = Mirror(reflecting: request.retyped(to: NSDictionary.self)).children.map { "\($0.label ?? ""): \($0.value)" }
        #expect(copied == original)
        #expect(original.count == 20, "every stored property set above; a new one must be set here and copied")
    }
}
