import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Watching a fetch (issue 32): `context.changes(of:)` yields the result when iteration
/// starts, then the result after each change that alters it with the difference from the last
/// one taken; a lagging consumer gets the latest, not a backlog; ending the iteration frees the
/// observation, and no observation keeps its context alive.
@Suite struct FetchObservationTests {
    static let kinds: [StoreKind] = [.inMemory, .binary, .sqlite]

    static func labels(_ update: FetchedResultsUpdate?, _ context: ManagedObjectContext) async throws -> [String] {
        let ids = update?.snapshot.itemIdentifiers ?? []
        return try await context.perform { context in
            try ids.map { try #require(try context.existingObject(with: $0) as? Tag).label }
        }
    }

    /// Saves `body`'s changes in a context of its own.
    static func save(_ coordinator: PersistentStoreCoordinator, _ body: @escaping @Sendable (isolated ManagedObjectContext) throws -> Void) async throws {
        try await backgroundContext(coordinator).perform { context in
            try body(context)
            try context.save()
        }
    }

    @Test(arguments: kinds)
    func otherContextsSavesAreWatched(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await Self.save(coordinator) { context in
            for label in ["b", "d"] { try Tag(context: context).label = label }
        }
        let watcher = backgroundContext(coordinator)
        try await watcher.perform { $0.automaticallyMergesChangesFromParent = true }
        var updates = watcher.changes(of: FetchRequest<Tag>(predicate: try FetchPredicate(format: "label != 'x'"), sortDescriptors: [.ascending("label")]))
            .makeAsyncIterator()

        let first = try await updates.next()
        #expect(try await Self.labels(first, watcher) == ["b", "d"])
        #expect(first?.insertedObjectIDs.count == 2, "the first update inserts the whole result")

        try await Self.save(coordinator) { context in try Tag(context: context).label = "c" }
        let second = try #require(try await updates.next())
        #expect(try await Self.labels(second, watcher) == ["b", "c", "d"])
        #expect(second.insertedObjectIDs.count == 1 && second.deletedObjectIDs.isEmpty)

        let ids = second.snapshot.itemIdentifiers
        try await Self.save(coordinator) { context in
            try #require(try context.existingObject(with: ids[0]) as? Tag).label = "e"  // b → e: moves to the end
        }
        let third = try #require(try await updates.next())
        #expect(try await Self.labels(third, watcher) == ["c", "d", "e"])
        #expect(third.movedObjectIDs.contains(ids[0]))
        #expect(third.insertedObjectIDs.isEmpty && third.deletedObjectIDs.isEmpty)

        try await Self.save(coordinator) { context in
            try #require(try context.existingObject(with: ids[1]) as? Tag).label = "x"  // c leaves through the predicate
        }
        let fourth = try #require(try await updates.next())
        #expect(fourth.deletedObjectIDs == [ids[1]])
        #expect(try await Self.labels(fourth, watcher) == ["d", "e"])
    }

    /// A consumer that lags is given the latest result once, with the whole difference since
    /// the last it took.
    @Test func aLaggingConsumerGetsTheLatestResult() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let context = backgroundContext(coordinator)
        var updates = context.changes(of: FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).makeAsyncIterator()
        #expect(try await updates.next()?.snapshot.numberOfItems == 0)
        for label in ["a", "b", "c"] {
            try await context.perform { context in try Tag(context: context).label = label }  // each perform processes its changes
        }
        let update = try #require(try await updates.next())
        #expect(update.snapshot.numberOfItems == 3)
        #expect(update.insertedObjectIDs.count == 3)
    }

    /// Leaving the loop ends the observation: the context lets it go.
    @Test func endingTheIterationFreesTheObservation() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let context = backgroundContext(coordinator)
        for try await update in context.changes(of: FetchRequest<Tag>(sortDescriptors: [.ascending("label")])) {
            #expect(update.snapshot.numberOfItems == 0)
            let held = try await context.perform { $0.graph.observations.count }
            #expect(held == 1)
            break
        }
        var held = 1
        for _ in 0..<200 where held != 0 {
            held = try await context.perform { $0.graph.observations.count }
            if held != 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(held == 0)
    }

    /// An observation does not keep its context alive: when the context goes, the sequence ends.
    @Test func theSequenceEndsWhenTheContextGoes() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        var context: ManagedObjectContext? = backgroundContext(coordinator)
        weak let weakContext = context
        var updates = try #require(context).changes(of: FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).makeAsyncIterator()
        #expect(try await updates.next() != nil)
        context = nil
        #expect(weakContext == nil)
        #expect(try await updates.next() == nil)
    }

    @Test func aRequestAControllerWouldRefuseIsRefusedAtTheFirstNext() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        var updates = backgroundContext(coordinator).changes(of: FetchRequest<Tag>()).makeAsyncIterator()
        await #expect(throws: PersistenceError.self) { _ = try await updates.next() }
    }

    /// Watching one object: the keys another context's save changed, once merged, then its
    /// deletion, which ends the sequence.
    @Test(arguments: kinds)
    func anObjectsChangesAndDeletionAreWatched(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            try context.save()
            return book.objectID
        }
        let watcher = backgroundContext(coordinator)
        try await watcher.perform { $0.automaticallyMergesChangesFromParent = true }
        var changes = watcher.changes(ofObjectWith: id).makeAsyncIterator()
        #expect(try await changes.next() == ObjectChange(changedKeys: [], isDeleted: false), "started")
        let tagID = try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.existingObject(with: id) as? Book)
            book.title = "Emma (2nd ed.)"
            book.pages = 474
            let tag = try Tag(context: context)
            tag.label = "novel"
            try context.save()
            return tag.objectID
        }
        let first = try #require(try await changes.next())
        #expect(first.changedKeys == ["title", "pages"])
        try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.existingObject(with: id) as? Book)
            book.tags = [try #require(try context.existingObject(with: tagID) as? Tag)]
            try context.save()
        }
        let second = try #require(try await changes.next())
        #expect(second.changedKeys == ["tags"])
        try await backgroundContext(coordinator).perform { context in
            context.delete(try context.existingObject(with: id))
            try context.save()
        }
        let last = try #require(try await changes.next())
        #expect(last.isDeleted)
        #expect(try await changes.next() == nil)
    }

    /// A to-many relationship the observer never used, changed elsewhere: on the SQL stores it
    /// was a relationship fault when the observation began, read then (its generation may be
    /// gone by the time the change is compared; read only then, it would read the changed
    /// targets as the old ones and compare equal).
    @Test(arguments: kinds + (PostgresTestServer.isAvailable ? [.postgres] : []))
    func aToManyChangedElsewhereBeforeAnyUseIsSeen(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let (id, tagID) = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            let tag = try Tag(context: context)
            tag.label = "novel"
            try context.save()
            return (book.objectID, tag.objectID)
        }
        let watcher = backgroundContext(coordinator)
        try await watcher.perform { $0.automaticallyMergesChangesFromParent = true }
        var changes = watcher.changes(ofObjectWith: id).makeAsyncIterator()
        #expect(try await changes.next() == ObjectChange(changedKeys: [], isDeleted: false), "started")
        try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.existingObject(with: id) as? Book)
            book.tags = [try #require(try context.existingObject(with: tagID) as? Tag)]
            try context.save()
        }
        let change = try #require(try await changes.next())
        #expect(change.changedKeys == ["tags"])
    }

    @Test func anObjectThatDoesNotExistIsRefused() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let id = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "gone"
            try context.save()
            context.delete(tag)
            try context.save()
            return tag.objectID
        }
        var changes = backgroundContext(coordinator).changes(ofObjectWith: id).makeAsyncIterator()
        let error = await #expect(throws: PersistenceError.self) { _ = try await changes.next() }
        #expect(error?.code == .objectNotFound)
    }
}
