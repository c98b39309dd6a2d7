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
            state.withLock { state in
                state.asked.append(relationship.name)
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

    /// Core Data asks the store's `newValue(forRelationship:forObjectWith:with:)` for a
    /// relationship a node leaves out — a to-one as a to-many (issue 30, item 8): a to-one left
    /// out is not taken as `nil`.
    @Test func aRelationshipANodeLeavesOutIsAskedFor() async throws {
        PersistentStoreCoordinator.registerStoreClass(RecordingStore.self, forStoreType: RecordingStore.type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try #require(try await coordinator.addPersistentStore(type: RecordingStore.type) as? RecordingStore)
        let model = coordinator.managedObjectModel
        let authorID = store.newObjectID(for: try #require(model.entity(named: "Author")), referenceObject: 1)
        let bookID = store.newObjectID(for: try #require(model.entity(named: "Book")), referenceObject: 2)
        store.state.withLock { state in
            state.nodes[authorID] = IncrementalStoreNode(
                objectID: authorID, attributeValues: ["name": .string("Ann")], relatedObjectIDs: ["books": [bookID], "passport": []], version: 1)
            // The book's node names none of its relationships.
            state.nodes[bookID] = IncrementalStoreNode(
                objectID: bookID, attributeValues: ["title": .string("Emma"), "pages": .integer32(474)], relatedObjectIDs: [:], version: 1)
            state.answers["author"] = [authorID]
        }
        let author = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Book>()).first?.author?.name
        }
        #expect(author == "Ann")
        let asked = store.state.withLock { $0.asked }
        #expect(Set(asked) == ["author", "chapters", "tags"], "every relationship the node left out, the to-one too")
    }
}
