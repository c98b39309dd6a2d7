import Foundation
@testable import Strata
import Testing

/// Core Data's `NSAsynchronousFetchRequest` as its documentation describes it: `execute(_:)`
/// returns an `NSAsynchronousFetchResult` at once, with a `progress`; the completion block is
/// later given `finalResult` (the fetch's results, in the context) or `operationError`, on the
/// context's queue; `cancel()` cancels the request.
@Suite(.timeLimit(.minutes(1))) struct AsynchronousFetchTests {
    static func library(_ kind: StoreKind, concurrency: ManagedObjectContext.ConcurrencyType = .privateQueue) async throws -> ManagedObjectContext {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            for (index, title) in ["Persuasion", "Emma", "Villette"].enumerated() {
                let book = try Book(context: context)
                book.title = title
                book.pages = 100 * (index + 1)
            }
            try context.save()
        }
        return ManagedObjectContext(concurrencyType: concurrency, persistentStoreCoordinator: coordinator)
    }

    /// What a completion block saw, sent out of it.
    struct Seen: Sendable, Equatable {
        var values: [String]?
        var error: String?
        var cancelled = false
        var progress: [Int64]?
        var onContextsExecutor = false
    }

    static func seen<Result>(_ result: AsynchronousFetchResult<Result>, _ describe: (Result) -> String) -> Seen {
        Seen(
            values: result.finalResult?.map(describe), error: result.operationError.map { "\(type(of: $0))" },
            cancelled: result.operationError is CancellationError,
            progress: result.progress.map { [$0.completedUnitCount, $0.totalUnitCount] },
            onContextsExecutor: result.managedObjectContext.isOnOwnExecutor)
    }

    @Test(arguments: StoreKind.queryable)
    func theBlockIsGivenTheObjectsAfterExecuteReturns(_ kind: StoreKind) async throws {
        let context = try await Self.library(kind)
        let (stream, continuation) = AsyncStream<Seen>.makeStream()
        let (pendingAtReturn, progressAtReturn) = try await context.perform { context in
            var request = FetchRequest<Book>(sortDescriptors: [.ascending("title")])
            request.predicate = try FetchPredicate(format: "pages > 100")
            var asynchronous = AsynchronousFetchRequest(fetchRequest: request) { result in
                continuation.yield(Self.seen(result) { "\($0.title) \($0.pages)" })
            }
            asynchronous.estimatedResultCount = 10
            let result = try context.execute(asynchronous)
            return (result.finalResult == nil && result.operationError == nil, result.progress?.totalUnitCount)
        }
        #expect(pendingAtReturn, "execute returns before the fetch runs")
        #expect(progressAtReturn == 10, "the estimate until the fetch counts")
        let seen = await stream.first { _ in true }
        #expect(seen == Seen(values: ["Emma 200", "Villette 300"], progress: [2, 2], onContextsExecutor: true))
    }

    @Test func everyResultTypeAnswersAsItsFetch() async throws {
        let context = try await Self.library(.sqlite)
        let (stream, continuation) = AsyncStream<Seen>.makeStream()
        try await context.perform { context in
            var dictionaries = FetchRequest<NSDictionary>(entityName: "Book", sortDescriptors: [.descending("pages")])
            dictionaries.propertiesToFetch = ["title"]
            try context.execute(AsynchronousFetchRequest(fetchRequest: dictionaries) { result in
                continuation.yield(Self.seen(result) { "\($0["title"] ?? "")" })
            })
            try context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<ManagedObjectID>(entityName: "Book")) { result in
                continuation.yield(Self.seen(result) { $0.entityName })
            })
            try context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<NSNumber>(entityName: "Book")) { result in
                continuation.yield(Self.seen(result) { "\($0)" })
            })
        }
        var seen: [Seen] = []
        for await one in stream.prefix(3) { seen.append(one) }
        #expect(seen.map(\.values) == [["Villette", "Emma", "Persuasion"], ["Book", "Book", "Book"], ["3"]], "in the order executed")
    }

    @Test func aCancelledRequestDoesNotFetch() async throws {
        let context = try await Self.library(.sqlite)
        let (stream, continuation) = AsyncStream<Seen>.makeStream()
        try await context.perform { context in
            let cancelled = try context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<Book>()) { result in
                continuation.yield(Self.seen(result) { $0.title })
            })
            cancelled.cancel()
            let byProgress = try context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<Book>()) { result in
                continuation.yield(Self.seen(result) { $0.title })
            })
            byProgress.progress?.cancel()
            return
        }
        var seen: [Seen] = []
        for await one in stream.prefix(2) { seen.append(one) }
        #expect(seen.map(\.values) == [nil, nil])
        #expect(seen.map(\.cancelled) == [true, true])
    }

    @Test func aFailingFetchGivesItsError() async throws {
        let context = try await Self.library(.sqlite)
        let (stream, continuation) = AsyncStream<Seen>.makeStream()
        try await context.perform { context in
            _ = try context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<Book>(entityName: "Shelf")) { result in
                continuation.yield(Self.seen(result) { $0.title })
            })
        }
        let seen = await stream.first { _ in true }
        #expect(seen?.values == nil)
        #expect(seen?.error == "PersistenceError")
    }

    /// Core Data makes the fetch's progress a child of the progress current when it executes.
    @Test func theProgressIsAChildOfTheCurrentProgress() async throws {
        let context = try await Self.library(.sqlite, concurrency: .mainQueue)
        let (stream, continuation) = AsyncStream<Double>.makeStream()
        try await context.perform { context in
            let overall = Progress(totalUnitCount: 1)
            overall.becomeCurrent(withPendingUnitCount: 1)
            try context.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest<Book>()) { result in
                #expect(result.managedObjectContext.isOnOwnExecutor)
                continuation.yield(overall.fractionCompleted)
            })
            overall.resignCurrent()
        }
        #expect(await stream.first { _ in true } == 1)
    }
}
