import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data's `changedValuesForCurrentEvent()` (issue 33): the persistent properties changed
/// since the context last posted `ObjectsDidChange`, with the values they had then — what an
/// observer of that notification reads to see what an object was. Apple's reference names the
/// keys "that have changed since the last posting of NSManagedObjectContextObjectsDidChange" and
/// their "old values" (Objective-C reference); transient properties are not reported.
@Suite struct ChangedValuesForCurrentEventTests {
    typealias Writer = CoreDataObjectAPITests.Writer
    typealias Volume = CoreDataObjectAPITests.Volume

    @Test func reportsTheValuesBeforeThisEventsChanges() async throws {
        let coordinator = try await makeCoordinator(CoreDataObjectAPITests.model(), .sqlite)
        try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            writer.name = "Mary"
            writer.nickname = "M"
            let first = try Volume(context: context)
            first.title = "Frankenstein"
            writer.books = [first]
            try context.save()
            #expect(writer.changedValuesForCurrentEvent().isEmpty, "a save posts the changes it made")

            writer.name = "Mary Shelley"
            writer.name = "M. Shelley"
            writer.draft = "notes"  // transient
            let second = try Volume(context: context)
            second.title = "The Last Man"
            writer.addToBooks(second)
            let changed = writer.changedValuesForCurrentEvent()
            #expect(Set(changed.keys) == ["name", "books"])
            #expect(changed["name"] as? String == "Mary", "the value before the event, not the latest")
            #expect(changed["books"] as? [ManagedObjectID] == [first.objectID])
            #expect(second.changedValuesForCurrentEvent().isEmpty, "an object inserted in this event had no values before it")
            #expect(first.changedValuesForCurrentEvent().isEmpty)

            context.processPendingChanges()
            #expect(writer.changedValuesForCurrentEvent().isEmpty, "a new event begins when the changes are posted")
            writer.nickname = "Mab"
            writer.name = "M. Shelley"  // unchanged
            #expect(writer.changedValuesForCurrentEvent().keys.sorted() == ["nickname"])
            #expect(writer.changedValuesForCurrentEvent()["nickname"] as? String == "M")
            writer.nickname = "M"
            #expect(writer.changedValuesForCurrentEvent().isEmpty, "a value set back to the one before is no change")
            #expect(Set(writer.changedValues().keys) == ["name", "books", "draft"], "changedValues() still counts from the save")
        }
    }

    /// An observer of `ObjectsDidChange` reads, for each updated object, what it was before.
    @Test func anObserverOfObjectsDidChangeReadsTheOldValues() async throws {
        let coordinator = try await makeCoordinator(CoreDataObjectAPITests.model(), .inMemory)
        let context = backgroundContext(coordinator)
        let seen = Locked<[String]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
        ) { note in
            let updated = note.userInfo?[ManagedObjectContext.NotificationKey.updatedObjects.rawValue] as? Set<ManagedObject> ?? []
            for object in updated {
                let old = object.changedValuesForCurrentEvent()["name"]
                seen.withLock { $0.append("\(old.map { $0 as? String ?? "nil" } ?? "-") → \((object as? Writer)?.name ?? "nil")") }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let id = try await context.perform { context in
            let writer = try Writer(context: context)
            writer.name = "Mary"
            try context.save()
            return writer.objectID
        }
        try await context.perform { context in
            (try context.existingObject(with: id) as? Writer)?.name = "Mary Shelley"
        }
        try await context.perform { context in
            (try context.existingObject(with: id) as? Writer)?.name = nil
        }
        #expect(seen.withLock { $0 } == ["Mary → Mary Shelley", "Mary Shelley → nil"])
    }
}
