import DirectoryStore
import Foundation
import StrataTestSupport
@testable import Strata
import Testing

/// The parts of Core Data's `NSIncrementalStore` contract that the conformance suite does not
/// see: which objects contexts take up and let go, told to the store.
@Suite struct IncrementalStoreContractTests {
    /// A store in memory that records what it is told; its rows live in a dictionary.
    final class RecordingStore: IncrementalStore, @unchecked Sendable {
        // Safe: every mutable part is inside `state`, behind a lock ThreadSanitizer follows.
        struct State {
            var nodes: [ManagedObjectID: IncrementalStoreNode] = [:]
            var registered: [ManagedObjectID: Int] = [:]
            var next: Int64 = 1
            /// Every save request, as (inserted, updated, deleted) counts.
            var saves: [(Int, Int, Int)] = []
            /// What `newValue(forRelationship:…)` answers, by relationship name; and what it was asked.
            var answers: [String: [ManagedObjectID]] = [:]
            var asked: [String] = []
            var failsToAnswer = false
        }
        let state = Locked(State())
        static let type = StoreType(rawValue: "Recording")

        override func newValuesForObject(with objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot) throws -> IncrementalStoreNode? {
            state.withLock { $0.nodes[objectID] }
        }

        override func newValue(
            forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
            with snapshot: any IncrementalStoreSnapshot
        ) throws -> [ManagedObjectID] {
            try state.withLock { state in
                state.asked.append(relationship.name)
                guard !state.failsToAnswer else { throw PersistenceError(.storeNotFound, "the store is asked to fail") }
                return state.answers[relationship.name] ?? []
            }
        }

        override func execute(_ request: IncrementalStoreRequest, with snapshot: (any IncrementalStoreSnapshot)?) throws -> IncrementalStoreResult {
            switch request {
            case .fetch(let entity, _):
                return .nodes(state.withLock { $0.nodes.values.filter { $0.objectID.entityName == entity.name } })
            case .save(let changes):
                return .saved(versions: state.withLock { state in
                    state.saves.append((changes.insertedObjects.count, changes.updatedObjects.count, changes.deletedObjects.count))
                    var versions: [ManagedObjectID: Int64] = [:]
                    for var node in changes.insertedObjects + changes.updatedObjects {
                        node.version += 1
                        state.nodes[node.objectID] = node
                        versions[node.objectID] = node.version
                    }
                    for id in changes.deletedObjects.keys { state.nodes[id] = nil }
                    return versions
                })
            }
        }

        override func obtainPermanentIDs(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
            try objectIDs.map { id in
                guard let entity = managedObjectModel.entity(named: id.entityName) else {
                    throw PersistenceError(.unknownEntity, objectIDs: [id], "no entity named '\(id.entityName)'")
                }
                return newObjectID(for: entity, referenceObject: state.withLock { state in
                    defer { state.next += 1 }
                    return state.next
                })
            }
        }

        override func managedObjectContextDidRegisterObjects(with objectIDs: [ManagedObjectID]) {
            state.withLock { state in for id in objectIDs { state.registered[id, default: 0] += 1 } }
        }

        override func managedObjectContextDidUnregisterObjects(with objectIDs: [ManagedObjectID]) {
            state.withLock { state in for id in objectIDs { state.registered[id, default: 0] -= 1 } }
        }
    }

    /// A store whose UUID could not be the host of an object URI (a damaged file of a user's own
    /// store) is refused when it is added, not when a URI is first built from it.
    @Test func aStoreWhoseUUIDCannotNameObjectsIsRefused() async throws {
        DirectoryStore.register()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Store.directory")
        let first = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await first.addPersistentStore(type: DirectoryStore.storeType, at: url)
        try await first.removePersistentStore(store)
        let file = url.appendingPathComponent("metadata.json")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: store.identifier, with: "damaged uuid/é")
        try Data(text.utf8).write(to: file)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let error = await #expect(throws: StoreError.self) { try await coordinator.addPersistentStore(type: DirectoryStore.storeType, at: url) }
        #expect(error?.code == .corruptFile)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func theStoreHearsWhichObjectsContextsHold() async throws {
        PersistentStoreCoordinator.registerStoreClass(RecordingStore.self, forStoreType: RecordingStore.type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try #require(try await coordinator.addPersistentStore(type: RecordingStore.type) as? RecordingStore)
        let id = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "kept"
            try context.save()
            return tag.objectID
        }
        #expect(store.state.withLock { $0.registered[id] } == 1, "a save gave the object a permanent ID: registered")

        let reader = backgroundContext(coordinator)
        let label = try await reader.perform { context in try context.fetch(FetchRequest<Tag>()).first?.label }
        #expect(label == "kept")
        #expect(store.state.withLock { $0.registered[id] } == 2, "the reader fetched it: registered there too")
        try await reader.perform { $0.reset() }
        #expect(store.state.withLock { $0.registered[id] } == 1, "the reader let it go")
    }

    /// Core Data sends a save with nothing in it to the store all the same (issue 30, item 7:
    /// stores use it, for example, to flush): one empty save request per `save()`.
    @Test func aSaveWithNothingToSaveStillReachesTheStore() async throws {
        PersistentStoreCoordinator.registerStoreClass(RecordingStore.self, forStoreType: RecordingStore.type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try #require(try await coordinator.addPersistentStore(type: RecordingStore.type) as? RecordingStore)
        try await backgroundContext(coordinator).perform { context in
            let changed = context.hasChanges
            #expect(!changed)
            try context.save()
            try Tag(context: context).label = "one"
            try context.save()
        }
        let saves = store.state.withLock { $0.saves }
        #expect(saves.count == 2)
        #expect(saves.first.map { $0.0 == 0 && $0.1 == 0 && $0.2 == 0 } == true)
        #expect(saves.last.map { $0.0 == 1 } == true)
    }

    /// A store with an author and a book whose node leaves every relationship out: what
    /// `newValue(forRelationship:…)` answers for them is set in `answers`.
    private func storeWithAnUnreadBook() async throws -> (PersistentStoreCoordinator, RecordingStore, book: ManagedObjectID) {
        PersistentStoreCoordinator.registerStoreClass(RecordingStore.self, forStoreType: RecordingStore.type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try #require(try await coordinator.addPersistentStore(type: RecordingStore.type) as? RecordingStore)
        let model = coordinator.managedObjectModel
        let authorID = store.newObjectID(for: try #require(model.entity(named: "Author")), referenceObject: 1)
        let bookID = store.newObjectID(for: try #require(model.entity(named: "Book")), referenceObject: 2)
        let tagID = store.newObjectID(for: try #require(model.entity(named: "Tag")), referenceObject: 3)
        store.state.withLock { state in
            state.next = 10
            state.nodes[authorID] = IncrementalStoreNode(
                objectID: authorID, attributeValues: ["name": .string("Ann")], relatedObjectIDs: ["books": [bookID], "passport": []], version: 1)
            state.nodes[bookID] = IncrementalStoreNode(
                objectID: bookID, attributeValues: ["title": .string("Emma"), "pages": .integer32(474)], relatedObjectIDs: [:], version: 1)
            state.nodes[tagID] = IncrementalStoreNode(
                objectID: tagID, attributeValues: ["label": .string("novel")], relatedObjectIDs: ["books": [bookID]], version: 1)
            state.answers = ["author": [authorID], "tags": [tagID], "chapters": []]
        }
        return (coordinator, store, bookID)
    }

    /// Core Data's relationship faults (issue 30, item 8): an incremental store's
    /// `newValue(forRelationship:forObjectWith:with:)` is asked for a relationship its node left
    /// out — a to-one too, not taken as `nil` — when the relationship is first used, not when
    /// the object is read, and once: another use asks nothing more, nor does another context
    /// faulting the object from the same generation (a fetch reads the store's nodes again,
    /// and their relationships with them).
    @Test func aRelationshipANodeLeavesOutIsAskedForAtItsFirstUseOnce() async throws {
        let (coordinator, store, bookID) = try await storeWithAnUnreadBook()
        let title = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Book>()).first?.title
        }
        #expect(title == "Emma")
        #expect(store.state.withLock { $0.asked }.isEmpty, "reading the book's attributes asks for none of its relationships")

        let author = try await backgroundContext(coordinator).perform { context in
            let book = try context.fetch(FetchRequest<Book>()).first
            return (book?.author?.name, book?.author?.name)
        }
        #expect(author.0 == "Ann" && author.1 == "Ann")
        #expect(store.state.withLock { $0.asked } == ["author"], "the to-one, once, and nothing else")

        let tags = try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.existingObject(with: bookID) as? Book)
            return (book.tags.map(\.label), book.tags.count, book.author?.name)
        }
        #expect(tags.0 == ["novel"] && tags.1 == 1 && tags.2 == "Ann")
        #expect(store.state.withLock { $0.asked } == ["author", "tags"], "a third context of the same generation asks only for what is new")
    }

    /// Changing an object whose relationship is unread reads it first, as a Core Data fault
    /// fires before it changes: a tag added to the book keeps the tag the store had, both sides
    /// agree, and the save hands the store every relationship of the updated book.
    @Test func changingAnUnreadRelationshipKeepsWhatTheStoreHad() async throws {
        let (coordinator, store, bookID) = try await storeWithAnUnreadBook()
        let labels = try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.fetch(FetchRequest<Book>()).first)
            let tag = try Tag(context: context)
            tag.label = "classic"
            tag.books = [book]
            let labels = book.tags.map(\.label).sorted()
            try context.save()
            return labels
        }
        #expect(labels == ["classic", "novel"], "the inverse change read the store's tags first")
        let saved = try #require(store.state.withLock { $0.nodes[bookID] })
        #expect(saved.relatedObjectIDs["tags"]?.count == 2)
        #expect(saved.relatedObjectIDs["author"]?.count == 1, "the author the store had, read for the save")
        #expect(saved.relatedObjectIDs["chapters"] == [])
    }

    /// A store that fails to answer leaves the relationship empty for that use, says so in the
    /// log, and is asked again at the next use (a fault the store could not fulfil stays one).
    @Test func aRelationshipTheStoreCannotReadIsAskedForAgain() async throws {
        let (coordinator, store, _) = try await storeWithAnUnreadBook()
        store.state.withLock { $0.failsToAnswer = true }
        let context = backgroundContext(coordinator)
        let first = try await context.perform { context in try context.fetch(FetchRequest<Book>()).first?.author?.name }
        #expect(first == nil)
        store.state.withLock { $0.failsToAnswer = false }
        let second = try await context.perform { context in
            let book = try context.fetch(FetchRequest<Book>()).first
            context.refresh(try #require(book), mergeChanges: false)
            return book?.author?.name
        }
        #expect(second == "Ann")
        #expect(store.state.withLock { $0.asked } == ["author", "author"])
    }
}
