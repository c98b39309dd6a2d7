import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite struct NotificationTests {
    @Test(arguments: StoreKind.queryable)
    func savesAreAnnouncedOnTheCoordinatorTheContextAndNotificationCenter(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let context = backgroundContext(coordinator)
        var coordinatorSaves = coordinator.didSaveNotifications.makeAsyncIterator()
        var contextSaves = context.didSaveNotifications.makeAsyncIterator()
        let posted = Locked<[(ObjectIdentifier?, Set<ManagedObjectID>?)]>([])
        let observer = NotificationCenter.default.addObserver(forName: ContextDidSave.notificationName, object: context, queue: nil) { note in
            let sender = (note.object as AnyObject?).map(ObjectIdentifier.init)
            let inserted = note.userInfo?[ContextDidSave.insertedObjectIDsKey] as? Set<ManagedObjectID>
            posted.withLock { $0.append((sender, inserted)) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let id = try await context.perform { context in
            context.name = "importer"
            context.transactionAuthor = "tests"
            let tag = try Tag(context: context)
            tag.label = "a"
            try context.save()
            return tag.objectID
        }
        let fromCoordinator = try #require(await coordinatorSaves.next())
        let fromContext = try #require(await contextSaves.next())
        for save in [fromCoordinator, fromContext] {
            #expect(save.insertedObjectIDs == [id])
            #expect(save.updatedObjectIDs.isEmpty && save.deletedObjectIDs.isEmpty)
            #expect(save.transactionAuthor == "tests")
            #expect(save.contextName == "importer")
            #expect(save.context === context)
        }
        let note = try #require(posted.withLock { $0.first { $0.0 == ObjectIdentifier(context) } })
        #expect(note.1 == [id])
    }

    @Test(arguments: StoreKind.queryable)
    func mergingASaveBringsItsChangesIn(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let (keepID, dropID) = try await backgroundContext(coordinator).perform { context in
            let keep = try Tag(context: context)
            keep.label = "old"
            let drop = try Tag(context: context)
            drop.label = "drop"
            try context.save()
            return (keep.objectID, drop.objectID)
        }
        let reader = backgroundContext(coordinator)
        // Realised, so that they keep their values until the merge: a fault would fire with
        // the row of the next fetch (Core Data's row cache).
        try await reader.perform { context in _ = try context.fetch(FetchRequest<Tag>()).map(\.label) }
        var changes = reader.objectsDidChangeNotifications.makeAsyncIterator()
        let writer = backgroundContext(coordinator)
        var saves = writer.didSaveNotifications.makeAsyncIterator()
        try await writer.perform { context in
            try #require(try context.existingObject(with: keepID) as? Tag).label = "new"
            context.delete(try context.existingObject(with: dropID))
            try context.save()
        }
        let didSave = try #require(await saves.next())
        let labels = try await reader.perform { context in
            let before = try context.fetch(FetchRequest<Tag>()).map(\.label).sorted()
            context.mergeChanges(fromContextDidSave: didSave)
            let after = try context.fetch(FetchRequest<Tag>()).map(\.label).sorted()
            return (before, after, context.registeredObject(for: dropID) == nil)
        }
        // Unpinned (Core Data's default), the fetch reads the latest store: the deleted tag is
        // gone, and the registered one keeps its in-memory values until the merge.
        #expect(labels.0 == ["old"])
        #expect(labels.1 == ["new"])
        #expect(labels.2)
        let change = try #require(await changes.next())
        #expect(change.refreshedObjectIDs == [keepID] && change.deletedObjectIDs == [dropID])
    }

    /// A context gives a book to an author it has just inserted; another save deletes the book.
    /// Core Data's `mergeChanges(fromContextDidSave:)` "faults in any newly-inserted objects"
    /// (issue 30, item 4): they are registered in the receiving context as faults, load their
    /// values when first read, and the merge's notice names them.
    @Test(arguments: StoreKind.queryable)
    func mergingASaveFaultsInItsInsertedObjects(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let reader = backgroundContext(coordinator)
        var changes = reader.objectsDidChangeNotifications.makeAsyncIterator()
        let writer = backgroundContext(coordinator)
        var saves = writer.didSaveNotifications.makeAsyncIterator()
        let id = try await writer.perform { context in
            let tag = try Tag(context: context)
            tag.label = "inserted elsewhere"
            try context.save()
            return tag.objectID
        }
        let didSave = try #require(await saves.next())
        let (registeredAsFault, label) = try await reader.perform { context in
            context.mergeChanges(fromContextDidSave: didSave)
            let object = context.registeredObject(for: id)
            let fault = object?.isFault == true
            return (fault, (object as? Tag)?.label)
        }
        #expect(registeredAsFault)
        #expect(label == "inserted elsewhere")
        let change = try #require(await changes.next())
        #expect(change.insertedObjectIDs == [id])
    }

    /// Merging that save deletes the book here too (Core Data's merge invokes `delete(_:)`);
    /// processing pending changes takes it out of the new author, and the context's save then
    /// stores an author without books rather than failing on a book that is gone.
    @Test(arguments: StoreKind.queryable)
    func mergingADeletionLetsGoOfItsLinks(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let bookID = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Gone"
            try context.save()
            return book.objectID
        }
        let context = backgroundContext(coordinator)
        try await context.perform { context in
            let author = try Author(context: context)
            author.name = "New"
            try #require(context.existingObject(with: bookID) as? Book).author = author
        }
        let writer = backgroundContext(coordinator)
        var saves = writer.didSaveNotifications.makeAsyncIterator()
        try await writer.perform { context in
            context.delete(try context.existingObject(with: bookID))
            try context.save()
        }
        let didSave = try #require(await saves.next())
        let (whileDeleted, books) = try await context.perform { context in
            context.mergeChanges(fromContextDidSave: didSave)
            // Core Data's merge invokes delete(_:) on the book: it is marked deleted here, and
            // leaves its links when the context processes its pending changes.
            let book = context.registeredObject(for: bookID)
            let whileDeleted = book?.isDeleted == true
            context.processPendingChanges()
            let author = try #require(context.insertedObjects.first as? Author)
            let books = author.books.count
            try context.save()
            return (whileDeleted, books)
        }
        #expect(whileDeleted)
        #expect(books == 0)
        let stored = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Author>()).map { "\($0.name): \($0.books.count)" }
        }
        #expect(stored == ["New: 0"])
    }

    @Test(arguments: StoreKind.queryable)
    func aContextCanMergeEverySaveAutomatically(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let view = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        let id = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "before"
            try context.save()
            return tag.objectID
        }
        var changes = view.objectsDidChangeNotifications.makeAsyncIterator()
        try await view.perform { context in
            context.automaticallyMergesChangesFromParent = true
            let label = try context.existingObject(with: id).value(forKey: "label") as? String
            #expect(label == "before")
        }
        try await backgroundContext(coordinator).perform { context in
            try #require(try context.existingObject(with: id) as? Tag).label = "after"
            try context.save()
        }
        _ = await changes.next()
        let label = try await view.perform { context in
            try context.registeredObject(for: id)?.value(forKey: "label") as? String
        }
        #expect(label == "after")
    }

    /// Core Data's query generations (`setQueryGenerationFrom(_:)`): a context pinned with
    /// `.current` reads one generation across fetches until it asks for the current one again;
    /// `nil` unpins it.
    @Test(arguments: StoreKind.queryable)
    func aLongReadSeesOneGenerationUntilItAsksForTheCurrentOne(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let reader = backgroundContext(coordinator)
        let first = try await reader.perform { context in
            #expect(context.queryGenerationToken == nil)
            try context.setQueryGenerationFrom(.current)
            _ = try context.count(for: FetchRequest<Tag>())
            let token = context.queryGenerationToken
            return try #require(token)
        }
        try await backgroundContext(coordinator).perform { context in
            try Tag(context: context).label = "new"
            try context.save()
        }
        let (pinned, current, token) = try await reader.perform { context in
            let pinned = try context.count(for: FetchRequest<Tag>())
            try context.setQueryGenerationFrom(context.queryGenerationToken)
            try context.setQueryGenerationFrom(.current)
            let count = try context.count(for: FetchRequest<Tag>())
            let token = context.queryGenerationToken
            return (pinned, count, try #require(token))
        }
        #expect(pinned == 0)
        #expect(current == 1)
        #expect(token > first)
        let unpinned = try await reader.perform { context in
            try context.setQueryGenerationFrom(nil)
            return context.queryGenerationToken
        }
        #expect(unpinned == nil)
        let error = try await reader.perform { context in
            #expect(throws: PersistenceError.self) { try context.setQueryGenerationFrom(first) }
        }
        #expect(error?.code == .unavailableGeneration)
    }

    @Test(arguments: StoreKind.queryable)
    func performHonoursCancellationBeforeTheBlockStarts(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let context = backgroundContext(coordinator)
        let ran = Locked(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await context.perform { _ in ran.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.withLock { $0 } == false)
    }
}
