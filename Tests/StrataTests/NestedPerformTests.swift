import Foundation
import Strata
import Synchronization
import Testing

/// A parent context's block that waits on its child (`child.performAndWait`) whose block reads
/// or saves into the parent: Core Data runs the nested parent work in place, on the thread that
/// holds the parent's queue (Apple's "Core Data Programming Guide", nested contexts;
/// `performAndWait` is reentrant). Before, Strata's child entered the parent's queue with
/// `DispatchQueue.sync` and Dispatch stopped the program: the queue was held by the thread.
@Suite(.timeLimit(.minutes(1))) struct NestedPerformTests {
    /// A parent with one unsaved author and one saved book.
    static func parent(_ concurrency: ManagedObjectContext.ConcurrencyType) async throws -> ManagedObjectContext {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        try await backgroundContext(coordinator).perform { context in
            try Book(context: context).title = "Emma"
            try context.save()
        }
        let parent = ManagedObjectContext(concurrencyType: concurrency, persistentStoreCoordinator: coordinator)
        try await parent.perform { try Author(context: $0).name = "Austen" }
        return parent
    }

    /// In the parent's block: the child fetches (reading the parent's objects, its unsaved
    /// ones too), inserts and saves (pushing into the parent); the parent then sees the push.
    static func childWork(_ parent: isolated ManagedObjectContext, _ child: ManagedObjectContext) throws -> [String] {
        let seen = try child.performAndWait { context in
            let names = try context.fetch(FetchRequest<Author>()).map(\.name)
            let titles = try context.fetch(FetchRequest<Book>()).map(\.title)
            try Book(context: context).title = "Persuasion"
            try context.save()
            return names + titles
        }
        let titles = try parent.fetch(FetchRequest<Book>(sortDescriptors: [.ascending("title")])).map(\.title)
        return seen + titles
    }

    static let expected = ["Austen", "Emma", "Emma", "Persuasion"]

    @Test func aPrivateParentsPerformBlockWaitsOnItsChild() async throws {
        let parent = try await Self.parent(.privateQueue)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        #expect(try await parent.perform { try Self.childWork($0, child) } == Self.expected)
    }

    @Test func aPrivateParentsPerformAndWaitWaitsOnItsChild() async throws {
        let parent = try await Self.parent(.privateQueue)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let result = try await Task.detached { try parent.performAndWait { try Self.childWork($0, child) } }.value
        #expect(result == Self.expected)
    }

    @Test func aMainQueueParentWaitsOnItsChild() async throws {
        let parent = try await Self.parent(.mainQueue)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        #expect(try await parent.perform { try Self.childWork($0, child) } == Self.expected)
        let again = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let result = try await Task.detached { try parent.performAndWait { try Self.childWork($0, again) } }.value
        #expect(result == ["Austen", "Emma", "Persuasion", "Emma", "Persuasion", "Persuasion"])
    }

    /// Three levels: the grandparent's block waits on the child, whose block waits on the
    /// grandchild, whose fetch reads through both.
    @Test func threeLevelsNestInPlace() async throws {
        let root = try await Self.parent(.privateQueue)
        let middle = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        let leaf = ManagedObjectContext(concurrencyType: .privateQueue, parent: middle)
        let names = try await root.perform { _ in
            try middle.performAndWait { _ in
                try leaf.performAndWait { try $0.fetch(FetchRequest<Author>()).map(\.name) }
            }
        }
        #expect(names == ["Austen"])
    }

    /// Holding one queue gives no way into another: a block of the parent that waits on an
    /// unrelated context busy on another thread waits until that context's block ends.
    @Test func holdingOneQueueDoesNotEnterAnother() async throws {
        let parent = try await Self.parent(.privateQueue)
        let other = try await Self.parent(.privateQueue)
        let busy = Flag()
        // On threads of their own: blocking waits on Swift's few cooperative threads could
        // starve the rest of a parallel test run.
        let sawBusy: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                other.performAndWait { _ in
                    busy.set(true)
                    Thread.sleep(forTimeInterval: 0.3)
                    busy.set(false)
                }
            }
            DispatchQueue.global().async {
                while !busy.value { usleep(1_000) }
                continuation.resume(returning: parent.performAndWait { _ in other.performAndWait { _ in busy.value } })
            }
        }
        #expect(sawBusy == false, "the other context's block had ended before this one ran")
    }

    final class Flag: Sendable {
        private let state = Mutex(false)
        var value: Bool { state.withLock { $0 } }
        func set(_ value: Bool) { state.withLock { $0 = value } }
    }
}
