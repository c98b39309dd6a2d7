import Foundation
import Strata
import Testing

/// Core Data's `processPendingChanges()` (issue 30, item 6): it processes what was inserted,
/// updated and deleted since the last call and posts `NSManagedObjectContextObjectsDidChange`
/// with those objects; the context calls it at the end of each `perform` block and before a
/// save or fetch. A call with nothing new posts nothing.
@Suite struct PendingChangesTests {
    @Test func eachNoticeSaysWhatChangedSinceTheLastOne() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let context = backgroundContext(coordinator)
        let (keepID, dropID) = try await context.perform { context in
            let keep = try Tag(context: context)
            keep.label = "keep"
            let drop = try Tag(context: context)
            drop.label = "drop"
            try context.save()
            return (keep.objectID, drop.objectID)
        }
        var notices = context.objectsDidChangeNotifications.makeAsyncIterator()
        let insertedID = try await context.perform { context in
            try #require(try context.existingObject(with: keepID) as? Tag).label = "changed"
            context.delete(try context.existingObject(with: dropID))
            let fresh = try Tag(context: context)
            fresh.label = "fresh"
            let fleeting = try Tag(context: context)
            fleeting.label = "gone before anyone heard of it"
            context.delete(fleeting)
            context.processPendingChanges()
            context.processPendingChanges()  // nothing new: no notice
            return fresh.objectID
        }
        let first = try #require(await notices.next())
        #expect(first.insertedObjectIDs == [insertedID])
        #expect(first.updatedObjectIDs == [keepID])
        #expect(first.deletedObjectIDs == [dropID])

        // The end of a perform block processes what the block changed.
        try await context.perform { context in
            try #require(context.registeredObject(for: keepID) as? Tag).label = "again"
        }
        let second = try #require(await notices.next())
        #expect(second.insertedObjectIDs.isEmpty && second.deletedObjectIDs.isEmpty)
        #expect(second.updatedObjectIDs == [keepID])
    }

    /// A fetch processes pending changes first: a delete's cascade has happened by the time the
    /// fetch matches, and the change is announced.
    @Test func aFetchProcessesPendingChangesFirst() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let context = backgroundContext(coordinator)
        let chapters = try await context.perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            let chapter = try Chapter(context: context)
            chapter.title = "I"
            chapter.book = book
            try context.save()
            context.delete(book)
            var request = FetchRequest<Chapter>()
            request.includesPendingChanges = true
            return try context.fetch(request).count
        }
        #expect(chapters == 0, "the cascade from the deleted book ran before the fetch")
    }
}
