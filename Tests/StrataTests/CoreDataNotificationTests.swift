import Foundation
import Strata
import StrataTestSupport
import Testing

/// The context's notifications as Core Data code observes them through `NotificationCenter`
/// (issue 33): `NSManagedObjectContext.willSaveObjectsNotification` before a save,
/// `didSaveObjectsNotification` and `didChangeObjectsNotification` with the objects (the
/// `NotificationKey` sets, in the posting context) and their IDs, and
/// `mergeChanges(fromContextDidSave:)` given the notification itself.
@Suite struct CoreDataNotificationTests {
    typealias Key = ManagedObjectContext.NotificationKey

    /// What one observed notification said, read in the observer's block (on the posting
    /// context's executor, where its objects may be used).
    struct Seen: Sendable {
        var name: Notification.Name
        var inserted: [String] = []
        var updated: [String] = []
        var deleted: [String] = []
        var insertedIDs: Set<ManagedObjectID> = []
        /// The object-set keys present: Core Data leaves out a set no object is in.
        var objectKeys: Set<String> = []
    }

    static func labels(_ info: [AnyHashable: Any]?, _ key: Key) -> [String] {
        ((info?[key.rawValue] as? Set<ManagedObject>) ?? []).compactMap { ($0 as? Tag)?.label }.sorted()
    }

    @Test func savesAndChangesArePostedWithTheirObjects() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let context = backgroundContext(coordinator)
        let seen = Locked<[Seen]>([])
        let names = [
            ManagedObjectContext.willSaveObjectsNotification, ManagedObjectContext.didSaveObjectsNotification,
            ManagedObjectContext.didChangeObjectsNotification,
        ]
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { note in
                let info = note.userInfo
                let record = Seen(
                    name: note.name, inserted: Self.labels(info, .insertedObjects), updated: Self.labels(info, .updatedObjects),
                    deleted: Self.labels(info, .deletedObjects),
                    insertedIDs: info?[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? [],
                    objectKeys: Set(
                        [Key.insertedObjects, .updatedObjects, .deletedObjects, .refreshedObjects].map(\.rawValue)
                            .filter { info?[$0] != nil }))
                seen.withLock { $0.append(record) }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        let ids = try await context.perform { context in
            let kept = try Tag(context: context)
            kept.label = "kept"
            let gone = try Tag(context: context)
            gone.label = "gone"
            try context.save()
            kept.label = "changed"
            context.delete(gone)
            try context.save()
            return [kept.objectID]
        }
        let records = seen.withLock { $0 }
        #expect(records.map(\.name) == [
            ManagedObjectContext.willSaveObjectsNotification, ManagedObjectContext.didChangeObjectsNotification,
            ManagedObjectContext.didSaveObjectsNotification,
            ManagedObjectContext.willSaveObjectsNotification, ManagedObjectContext.didChangeObjectsNotification,
            ManagedObjectContext.didSaveObjectsNotification,
        ])
        #expect(records[1].inserted == ["gone", "kept"], "the objects inserted since the last notice")
        #expect(records[2].inserted == ["gone", "kept"])
        #expect(records[2].insertedIDs.contains(ids[0]), "permanent IDs beside the objects")
        #expect(records[2].objectKeys == [Key.insertedObjects.rawValue], "no key for a change that touched no object")
        #expect(records[5].objectKeys == [Key.updatedObjects.rawValue, Key.deletedObjects.rawValue])
        #expect(records[4].updated == ["changed"] && records[4].deleted == ["gone"])
        #expect(records[5].updated == ["changed"] && records[5].deleted == ["gone"], "a deleted object is named all the same")
    }

    /// A child context's save is posted as any save (Core Data posts `DidSave` for it, naming
    /// what it pushed to its parent, new objects under their temporary IDs); the parent's own
    /// save, which reaches the store, is posted in turn.
    @Test func aChildContextsSaveIsPosted() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let parent = backgroundContext(coordinator)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let seen = Locked<[Seen]>([])
        let observers = [child, parent].map { context in
            NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectsNotification, object: context, queue: nil) { note in
                let info = note.userInfo
                let record = Seen(
                    name: note.name, inserted: Self.labels(info, .insertedObjects), updated: Self.labels(info, .updatedObjects),
                    deleted: Self.labels(info, .deletedObjects),
                    insertedIDs: info?[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? [])
                seen.withLock { $0.append(record) }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let saves = child.didSaveNotifications  // subscribed here, before the save
        let announced = Task { () -> Set<ManagedObjectID> in
            for await save in saves { return save.insertedObjectIDs }
            return []
        }

        try await child.perform { context in
            try Tag(context: context).label = "draft"
            try context.save()
        }
        var records = seen.withLock { $0 }
        #expect(records.map(\.inserted) == [["draft"]], "the child's save, before the parent saves")
        #expect(records.first?.insertedIDs.allSatisfy(\.isTemporaryID) == true)
        #expect(await announced.value == records.first?.insertedIDs, "on the child's own stream too")

        try await parent.perform { try $0.save() }
        records = seen.withLock { $0 }
        #expect(records.map(\.inserted) == [["draft"], ["draft"]])
        #expect(records.last?.insertedIDs.contains(where: \.isTemporaryID) == false, "the parent's save gave permanent IDs")
    }

    /// Core Data's idiom: observe another context's saves and merge the notification.
    @Test func aSavesNotificationMergesIntoAnotherContext() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let writer = backgroundContext(coordinator)
        let reader = backgroundContext(coordinator)
        let id = try await writer.perform { context in
            let tag = try Tag(context: context)
            tag.label = "first"
            try context.save()
            return tag.objectID
        }
        #expect(try await reader.perform { context in (try context.existingObject(with: id) as? Tag)?.label } == "first")

        // In the observer's block, the IDs are taken for the other context (a `Notification`
        // is not `Sendable` on Linux).
        let announced = Locked<[ObjectIDChanges]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectsNotification, object: writer, queue: nil
        ) { note in announced.withLock { $0.append(ObjectIDChanges(contextDidSave: note)) } }
        defer { NotificationCenter.default.removeObserver(observer) }
        try await writer.perform { context in
            (try context.existingObject(with: id) as? Tag)?.label = "second"
            try context.save()
        }
        let changes = try #require(announced.withLock { $0.first })
        #expect(changes.updatedObjectIDs == [id])
        let label = try await reader.perform { context in
            context.mergeChanges(fromRemoteContextSave: changes)
            return (context.registeredObject(for: id) as? Tag)?.label
        }
        #expect(label == "second")

        // The notification itself, where the code holds it.
        let note = Notification(
            name: ManagedObjectContext.didSaveObjectsNotification, object: writer,
            userInfo: [Key.updatedObjectIDs.rawValue: Set([id])])
        try await writer.perform { context in
            (try context.existingObject(with: id) as? Tag)?.label = "third"
            try context.save()
        }
        await reader.mergeChanges(fromContextDidSave: note)
        #expect(try await reader.perform { context in (context.registeredObject(for: id) as? Tag)?.label } == "third")

        // One made by hand, without a generation: the context moves to the latest first.
        let handMade = Notification(
            name: ManagedObjectContext.didSaveObjectsNotification, object: nil,
            userInfo: [Key.deletedObjectIDs.rawValue: Set([id])])
        await reader.mergeChanges(fromContextDidSave: handMade)
        let deleted = try await reader.perform { context in context.registeredObject(for: id)?.isDeleted }
        #expect(deleted == true)
    }
}
