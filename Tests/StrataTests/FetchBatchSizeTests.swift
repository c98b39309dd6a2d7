import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Core Data's `fetchBatchSize` (issue 30, item 3; Core Data's documentation of the property:
/// "the objects in the batch are faulted in as they are needed"): a fetch with a batch size
/// reads the matches' IDs, and each batch's values when one of its objects is first used — one
/// query for the batch, not one per object, and nothing for batches never used.
@Suite struct FetchBatchSizeTests {
    /// 250 books titled "Book 000"…"Book 249" (inserted in reverse), each with an author of
    /// its own, and `pages` = its number.
    static func shelf(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            for number in (0..<250).reversed() {
                let book = try Book(context: context)
                book.title = String(format: "Book %03d", number)
                book.pages = number
                let author = try Author(context: context)
                author.name = "Author \(number)"
                book.author = author
            }
            try context.save()
        }
        return coordinator
    }

    static func request(batchSize: Int) -> FetchRequest<Book> {
        var request = FetchRequest<Book>(predicate: try? FetchPredicate(format: "pages >= 10"), sortDescriptors: [.ascending("title")])
        request.fetchBatchSize = batchSize
        return request
    }

    /// Which of `books` hold their values (fired, or faults holding the row their batch read).
    static func holdingValues(_ books: [Book]) -> [Int] {
        books.indices.filter { !books[$0].isFault || books[$0].cachedAt != 0 }
    }

    static let incremental: [StoreKind] = [.sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    @Test(arguments: incremental)
    func objectsAreReadABatchAtATimeAsTheyAreUsed(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(Self.request(batchSize: 100))
            #expect(books.count == 240)
            #expect(Self.holdingValues(books).isEmpty, "the fetch read IDs only")
            let allFaults = books.allSatisfy { $0.isFault }
            #expect(allFaults)

            #expect(books[150].title == "Book 160")
            #expect(Self.holdingValues(books) == Array(100..<200), "using one object read its whole batch, and only it")
            #expect(books[199].pages == 209)
            #expect(books[239].title == "Book 249")
            #expect(Self.holdingValues(books) == Array(100..<240))

            let titles = books.map(\.title)
            #expect(titles == (10..<250).map { String(format: "Book %03d", $0) }, "every batch, in the fetch's order")
        }
    }

    /// A batch size changes when values are read, never which objects a fetch gives or in
    /// which order: on every store kind, with and without a window, with unsaved changes in
    /// play (which the store cannot answer alone). Nor does an ID fetch, which reads IDs alone.
    @Test(arguments: StoreKind.queryable)
    func aBatchSizeGivesTheSameObjectsInTheSameOrder(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        try await backgroundContext(coordinator).perform { context in
            for (offset, limit) in [(0, 0), (5, 30), (230, 50)] {
                var plain = Self.request(batchSize: 0)
                var batched = Self.request(batchSize: 7)
                (plain.fetchOffset, plain.fetchLimit, batched.fetchOffset, batched.fetchLimit) = (offset, limit, offset, limit)
                let expected = try context.fetch(plain).map(\.title)
                let batchedTitles = try context.fetch(batched).map(\.title)
                #expect(batchedTitles == expected)
                // An ID fetch reads IDs only where the store answers alone: the same IDs, in order.
                let ids = try context.fetchObjectIDs(plain)
                let fetchedIDs = try context.fetch(plain).map(\.objectID)
                #expect(ids == fetchedIDs)
            }
            let book = try Book(context: context)
            book.title = "Book 100½"
            book.pages = 100
            let batched = try context.fetch(Self.request(batchSize: 7)).map(\.title)
            #expect(batched.count == 241)
            #expect(batched[91] == "Book 100½", "an unsaved object takes its place")
        }
    }

    /// A batch's prefetching key paths are followed when the batch is read, for its objects.
    @Test(arguments: incremental)
    func prefetchingFollowsEachBatchAsItIsRead(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        try await backgroundContext(coordinator).perform { context in
            var request = Self.request(batchSize: 50)
            request.relationshipKeyPathsForPrefetching = ["author"]
            let books = try context.fetch(request)
            #expect(context.registeredObjects.filter { $0 is Author }.isEmpty)
            #expect(books[60].author?.name == "Author 70")
            let authors = context.registeredObjects.compactMap { $0 as? Author }
            #expect(authors.count == 50, "the authors of the batch read")
            #expect(authors.allSatisfy { !$0.isFault || $0.cachedAt != 0 }, "each holding its values")
        }
    }

    /// An object another context deleted before its batch was read fires as Core Data's
    /// inaccessible faults do (Strata: its defaults), and the rest of the batch is read.
    @Test(arguments: incremental)
    func anObjectDeletedBeforeItsBatchIsReadLeavesTheOthersWhole(_ kind: StoreKind) async throws {
        let coordinator = try await Self.shelf(kind)
        let context = backgroundContext(coordinator)
        let ids = try await context.perform { context in try context.fetch(Self.request(batchSize: 100)).map(\.objectID) }
        try await backgroundContext(coordinator).perform { context in
            context.delete(try context.existingObject(with: ids[3]))
            try context.save()
        }
        try await context.perform { context in
            let books = try ids.map { try #require(context.registeredObject(for: $0) as? Book) }
            #expect(books[2].title == "Book 012")
            #expect(books[4].title == "Book 014")
            #expect(books[3].title == "", "gone from the store: its defaults")
        }
    }
}
