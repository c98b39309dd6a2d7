import Foundation
import Strata
import StrataTestSupport
import Testing

/// `NSFetchRequest.execute()` (issue 33; Core Data's documentation: it executes the request
/// in the current context, and must be called from within a block submitted to a context):
/// inside `perform` and `performAndWait` it fetches in that context; elsewhere it is a typed
/// error.
@Suite struct FetchRequestExecuteTests {
    @Test func executeFetchesInTheContextWhoseBlockRunsIt() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let parent = backgroundContext(coordinator)
        try await parent.perform { context in
            for label in ["b", "a"] { try Tag(context: context).label = label }
            try context.save()
        }
        let labels = try await parent.perform { _ in
            try FetchRequest<Tag>(sortDescriptors: [.ascending("label")]).execute().map(\.label)
        }
        #expect(labels == ["a", "b"])

        // A parent's block inside a child's: each fetch is in the context whose block runs it
        // (the child's unsaved object is in the child's fetch only).
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let seen = try await child.perform { context in
            try Tag(context: context).label = "draft"
            let inChild = try FetchRequest<Tag>().execute().count
            let inParent = try parent.performAndWait { _ in try FetchRequest<Tag>().execute().count }
            return [inChild, inParent, try FetchRequest<Tag>().execute().count]
        }
        #expect(seen == [3, 2, 3])

        // On a thread of its own, through performAndWait.
        let counted = Locked<Int?>(nil)
        let thread = Thread {
            let count = (try? parent.performAndWait { _ in try FetchRequest<Tag>().execute().count }) ?? -1
            counted.withLock { $0 = count }
        }
        thread.start()
        while counted.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(counted.withLock { $0 } == 2)
    }

    @Test func outsideABlockItIsATypedError() async throws {
        #expect(throws: PersistenceError.self) { try FetchRequest<Tag>().execute() }
        let coordinator = try await makeCoordinator(libraryModel())
        let inTask = try await backgroundContext(coordinator).perform { _ in
            // A task started in the block inherits nothing it may use: it runs elsewhere.
            Task { () -> Bool in (try? FetchRequest<Tag>().execute()) == nil }
        }.value
        #expect(inTask)
    }
}
