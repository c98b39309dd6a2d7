import Foundation
@testable import Strata
import Testing

@Suite struct ObjectIDTests {
    @Test func temporaryIDsBecomePermanentWhenSaved() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let store = try #require(coordinator.persistentStores.first)
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Austen"
            let book = try Book(context: context)
            book.title = "Emma"
            book.author = author
            let temporary = author.objectID
            #expect(temporary.isTemporaryID)
            #expect(temporary.persistentStoreIdentifier == nil)
            #expect(temporary.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Author/t"))

            try context.save()
            #expect(!author.objectID.isTemporaryID)
            #expect(author.objectID.persistentStoreIdentifier == store.identifier)
            #expect(author.objectID.referenceNumber == 1)
            #expect(context.registeredObject(for: author.objectID) === author)
            #expect(context.registeredObject(for: temporary) == nil)
            #expect(book.author === author, "relationships follow the new IDs")
            #expect(book.committedValues(forKeys: ["author"])["author"] as? ManagedObjectID == author.objectID)
        }
    }

    @Test func urisResolveToTheSameObject() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let store = try #require(coordinator.persistentStores.first)
        let uri = try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Eliot"
            try context.save()
            return author.objectID.uriRepresentation()
        }
        #expect(uri.absoluteString == "x-coredata://\(store.identifier)/Author/p1")
        let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        let name = try await backgroundContext(coordinator).perform { context in
            try #require(try context.existingObject(with: id) as? Author).name
        }
        #expect(name == "Eliot")
        // A URI with Strata's earlier scheme, as an app may have stored it, names the same object.
        let earlier = try #require(URL(string: uri.absoluteString.replacingOccurrences(of: "x-coredata://", with: "x-strata://")))
        #expect(coordinator.managedObjectID(forURIRepresentation: earlier) == id)
    }

    @Test(arguments: [
        "x-strata:///Author/t6F9619FF-8B86-D011-B42D-00C04FC964FF",
        "x-strata://00000000-0000-0000-0000-000000000000/Author/p1",
        "x-strata://STORE/Writer/p1",
        "x-strata://STORE/Author/p0",
        "x-strata://STORE/Author/pabc",
        "x-strata://STORE/Author",
        "x-other://STORE/Author/p1",
        "x-coredata://STORE/Writer/p1",
    ])
    func malformedOrForeignURIsResolveToNothing(_ text: String) async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let store = try #require(coordinator.persistentStores.first)
        let uri = try #require(URL(string: text.replacingOccurrences(of: "STORE", with: store.identifier)))
        #expect(coordinator.managedObjectID(forURIRepresentation: uri) == nil)
    }

    @Test func referenceNumbersAreNeverReused() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let numbers = try await backgroundContext(coordinator).perform { context in
            var numbers: [Int64] = []
            for _ in 0..<3 {
                let tag = try Tag(context: context)
                tag.label = "t"
                try context.save()
                numbers.append(try #require(tag.objectID.referenceNumber))
                context.delete(tag)
                try context.save()
            }
            return numbers
        }
        #expect(numbers == [1, 2, 3])
    }

    @Test func aMissingObjectIsATypedError() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let id = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "gone"
            try context.save()
            let id = tag.objectID
            context.delete(tag)
            try context.save()
            return id
        }
        let error = try await backgroundContext(coordinator).perform { context in
            #expect(throws: PersistenceError.self) { try context.existingObject(with: id) }
        }
        #expect(error?.code == .objectNotFound)
    }

    /// IDs share their store and entity through interned spaces; however an ID is made (from a
    /// URI, from its parts, in a space at hand), equal parts give equal IDs with equal hashes,
    /// and a different store, entity or number gives a different ID.
    @Test func idsAreEqualExactlyWhenTheirPartsAre() throws {
        let store = UUID().uuidString
        let other = UUID().uuidString
        let fromParts = ManagedObjectID.make(store: store, entity: "Book", reference: 7)
        let fromURI = try #require(ManagedObjectID(uri: fromParts.uriRepresentation()))
        let inSpace = ManagedObjectID(space: .make(store: store, entityName: "Book"), number: 7)
        #expect(fromParts == fromURI && fromURI == inSpace)
        #expect(Set([fromParts, fromURI, inSpace]).count == 1)
        #expect(fromParts.hashValue == inSpace.hashValue)
        let different = [
            ManagedObjectID.make(store: other, entity: "Book", reference: 7),
            ManagedObjectID.make(store: store, entity: "Author", reference: 7),
            ManagedObjectID.make(store: store, entity: "Book", reference: 8),
        ]
        for id in different { #expect(id != fromParts, "\(id)") }
        #expect(Set(different + [fromParts]).count == 4)
        #expect(fromParts.entityName == "Book" && fromParts.persistentStoreIdentifier == store && fromParts.referenceNumber == 7)
        let temporary = ManagedObjectID.temporary(in: .make(store: nil, entityName: "Book"))
        #expect(temporary.isTemporaryID && temporary.persistentStoreIdentifier == nil && temporary.referenceNumber == nil)
        #expect(temporary != fromParts)
    }

    /// Every row holds these by the million: their sizes showed in every benchmark (an
    /// attribute value at 48 bytes and an ID at 41 made saving a million objects a third slower).
    @Test func theValuesRowsHoldStaySmall() {
        #expect(MemoryLayout<ManagedObjectID>.stride == 16)
        #expect(MemoryLayout<AttributeValue?>.stride <= 24)
        #expect(MemoryLayout<RelationshipTargets>.stride <= 24)
    }
}
