import Foundation
import Strata
import Testing

/// An undo manager per context, as Core Data's (issue 30, item 10): `nil` by default on
/// background contexts; given one, every change made in the context is registered, one group
/// per processing of pending changes (the end of each `perform`), or per explicit
/// `beginUndoGrouping()`/`endUndoGrouping()`; undo restores attribute values, relationships on
/// both sides and inserted and deleted state; redo does it again. Core Data's `rollback()`
/// "removes everything from the undo stack".
@Suite struct UndoTests {
    /// A context with an undo manager, and a saved author "Ann" with one book "Draft".
    static func library() async throws -> (ManagedObjectContext, ManagedObjectID, ManagedObjectID) {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let context = backgroundContext(coordinator)
        let ids = try await context.perform { context in
            let undoManager = context.undoManager
            #expect(undoManager == nil, "nil by default")
            context.undoManager = UndoManager()
            let author = try Author(context: context)
            author.name = "Ann"
            let book = try Book(context: context)
            book.title = "Draft"
            book.author = author
            try context.save()
            context.undoManager?.removeAllActions()
            return (author.objectID, book.objectID)
        }
        return (context, ids.0, ids.1)
    }

    @Test func anAttributeChangeIsUndoneAndRedone() async throws {
        let (context, _, bookID) = try await Self.library()
        try await context.perform { context in
            try #require(context.existingObject(with: bookID) as? Book).title = "Final"
        }
        try await context.perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            let canUndo = context.undoManager?.canUndo
            #expect(canUndo == true)
            context.undoManager?.undo()
            #expect(book.title == "Draft")
            let hasChanges = context.hasChanges
            #expect(!book.isUpdated && !hasChanges, "back to the saved value: nothing to save")
            let canRedo = context.undoManager?.canRedo
            #expect(canRedo == true)
            context.undoManager?.redo()
            #expect(book.title == "Final")
            #expect(book.isUpdated)
        }
    }

    @Test func aRelationshipIsRestoredOnBothSides() async throws {
        let (context, authorID, bookID) = try await Self.library()
        try await context.perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            let other = try Author(context: context)
            other.name = "Bo"
            book.author = other
        }
        try await context.perform { context in
            let ann = try #require(context.existingObject(with: authorID) as? Author)
            let book = try #require(context.existingObject(with: bookID) as? Book)
            context.undoManager?.undo()
            #expect(book.author === ann)
            #expect(ann.books == [book])
            let inserted = context.insertedObjects
            #expect(inserted.isEmpty, "the new author's insert is taken back too")
            context.undoManager?.redo()
            #expect(book.author?.name == "Bo")
            #expect(ann.books.isEmpty)
            let insertedAgain = context.insertedObjects
            #expect(insertedAgain.count == 1)
        }
    }

    /// Setting a to-many moves a book from another author: the book's to-one (set through the
    /// inverse) and the other author's to-many come back too.
    @Test func aToManyChangeIsUndoneOnEveryObjectItTouched() async throws {
        let (context, authorID, bookID) = try await Self.library()
        let (boID, otherID) = try await context.perform { context in
            let bo = try Author(context: context)
            bo.name = "Bo"
            let other = try Book(context: context)
            other.title = "Other"
            other.author = bo
            try context.save()
            context.undoManager?.removeAllActions()
            return (bo.objectID, other.objectID)
        }
        try await context.perform { context in
            let ann = try #require(context.existingObject(with: authorID) as? Author)
            let draft = try #require(context.existingObject(with: bookID) as? Book)
            let other = try #require(context.existingObject(with: otherID) as? Book)
            ann.books = [draft, other]
        }
        try await context.perform { context in
            let bo = try #require(context.existingObject(with: boID) as? Author)
            let other = try #require(context.existingObject(with: otherID) as? Book)
            #expect(other.author?.name == "Ann" && bo.books.isEmpty)
            context.undoManager?.undo()
            #expect(other.author === bo)
            #expect(bo.books == [other])
            let hasChanges = context.hasChanges
            #expect(!hasChanges)
        }
    }

    @Test func aDeleteAndItsCascadeAreUndone() async throws {
        let (context, authorID, bookID) = try await Self.library()
        try await context.perform { context in
            context.delete(try context.existingObject(with: authorID))
        }
        try await context.perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            #expect(book.isDeleted, "Author.books cascades")
            context.undoManager?.undo()
            let ann = try #require(context.existingObject(with: authorID) as? Author)
            #expect(!ann.isDeleted && !book.isDeleted)
            #expect(ann.books == [book] && book.author === ann)
            let hasChanges = context.hasChanges
            #expect(!hasChanges)
            context.undoManager?.redo()
            #expect(ann.isDeleted && book.isDeleted)
            try context.save()
        }
        let left = try await context.perform { context in try context.count(for: FetchRequest<Book>()) }
        #expect(left == 0)
    }

    @Test func anExplicitGroupIsUndoneAtOnceAndRollbackEmptiesTheStack() async throws {
        let (context, _, bookID) = try await Self.library()
        try await context.perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            context.undoManager?.beginUndoGrouping()
            book.title = "One"
            context.processPendingChanges()
            book.pages = 300
            context.processPendingChanges()
            context.undoManager?.endUndoGrouping()
            book.title = "Two"
        }
        try await context.perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            context.undoManager?.undo()
            #expect(book.title == "One" && book.pages == 300, "the last group alone")
            context.undoManager?.undo()
            #expect(book.title == "Draft" && book.pages == 0, "the explicit group at once")
            book.title = "Three"
            context.processPendingChanges()
            let couldUndo = context.undoManager?.canUndo
            #expect(couldUndo == true)
            context.rollback()
            let (canUndo, canRedo) = (context.undoManager?.canUndo, context.undoManager?.canRedo)
            #expect(canUndo == false && canRedo == false)
        }
    }
}
