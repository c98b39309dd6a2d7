import Foundation
import Strata
import Testing

/// `obtainPermanentIDs(for:)` (issue 33; Core Data's documentation: "Converts to permanent IDs
/// the object IDs of the objects in a given array"): a new object's ID can be handed on before
/// the save, and the save keeps it.
@Suite struct ObtainPermanentIDsTests {
    @Test(arguments: [StoreKind.inMemory, .binary, .sqlite])
    func theSaveKeepsTheIDsObtainedBeforeIt(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let (early, saved, uri) = try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Jane Austen"
            let book = try Book(context: context)
            book.title = "Emma"
            book.author = author
            #expect(author.objectID.isTemporaryID)
            try context.obtainPermanentIDs(for: [author, author])
            let early = author.objectID
            #expect(!early.isTemporaryID)
            #expect(book.objectID.isTemporaryID, "only the objects asked for")
            #expect(context.registeredObject(for: early) === author)
            let uri = early.uriRepresentation()
            try context.save()
            return (early, author.objectID, uri)
        }
        #expect(saved == early)
        let resolved = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(resolved == early, "the URI taken before the save names the saved object")
        let (name, titles) = try await backgroundContext(coordinator).perform { context in
            let author = try #require(try context.existingObject(with: resolved) as? Author)
            return (author.name, author.books.map(\.title))
        }
        #expect(name == "Jane Austen")
        #expect(titles == ["Emma"], "the book's link to the author followed the new ID")
    }

    /// A child's obtained ID is the parent's object's ID, and the parent's save keeps it.
    @Test func aChildsObtainedIDSurvivesTheParentsSave() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let parent = backgroundContext(coordinator)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let id = try await child.perform { context in
            let tag = try Tag(context: context)
            tag.label = "early"
            try context.obtainPermanentIDs(for: [tag])
            try context.save()
            return tag.objectID
        }
        #expect(!id.isTemporaryID)
        try await parent.perform { try $0.save() }
        let label = try await backgroundContext(coordinator).perform { context in (try context.existingObject(with: id) as? Tag)?.label }
        #expect(label == "early")
    }

    /// With no store to give IDs in, a typed error, and the objects keep their temporary IDs.
    @Test func withoutAWritableStoreNothingChanges() async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let (error, stillTemporary) = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            let error = #expect(throws: PersistenceError.self) { try context.obtainPermanentIDs(for: [tag]) }
            return (error?.code, tag.objectID.isTemporaryID)
        }
        #expect(error == .noPersistentStore)
        #expect(stillTemporary)
    }
}
