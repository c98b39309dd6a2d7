import Foundation
import Strata
import Testing

@Suite struct ContextConcurrencyTests {
    /// Marks the main queue (Linux drains it on worker threads, so `Thread.isMainThread` cannot tell).
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    @Test(arguments: StoreKind.queryable)
    func privateAndMainQueueContextsWorkFromAsyncCode(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let main = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        let background = backgroundContext(coordinator)

        let id = try await background.perform { context in
            let author = try Author(context: context)
            author.name = "Austen"
            try context.save()
            return author.objectID
        }
        let (name, onMain) = try await main.perform { context in
            let author = try #require(try context.existingObject(with: id) as? Author)
            return (author.name, DispatchQueue.getSpecific(key: Self.mainQueueKey) == true)
        }
        #expect(name == "Austen")
        #expect(onMain, "a main-queue context runs on the main queue")
        let onBackgroundMain = try await background.perform { _ in DispatchQueue.getSpecific(key: Self.mainQueueKey) == true }
        #expect(!onBackgroundMain)
    }

    @Test(arguments: StoreKind.queryable)
    func mainQueueContextSharesTheMainActor(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let main = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        let count = try await MainActor.run {
            try main.performAndWait { context in
                let tag = try Tag(context: context)
                tag.label = "from the main actor"
                try context.save()
                return try context.count(for: FetchRequest<Tag>())
            }
        }
        #expect(count == 1)
    }

    @Test(arguments: StoreKind.queryable)
    func performAndWaitNestedOnItsOwnQueueDoesNotDeadlock(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let context = backgroundContext(coordinator)
        let depth = try context.performAndWait { outer in
            try outer.performAndWait { inner in
                let tag = try Tag(context: inner)
                tag.label = "nested"
                return inner.performAndWait { innermost in innermost.insertedObjects.count } + 2
            }
        }
        #expect(depth == 3)
        let fromAsync = try await context.perform { ctx in
            ctx.performAndWait { $0.insertedObjects.count }
        }
        #expect(fromAsync == 1)
    }

    @Test(arguments: StoreKind.queryable)
    func theSecondOfTwoConflictingSavesFailsAndNothingIsLost(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Draft"
            book.pages = 100
            try context.save()
            return book.objectID
        }
        let first = backgroundContext(coordinator)
        let second = backgroundContext(coordinator)
        // Both contexts read version 1 of the book.
        for context in [first, second] {
            _ = try await context.perform { try #require(try $0.existingObject(with: id) as? Book).title }
        }
        try await first.perform { context in
            try #require(context.registeredObject(for: id) as? Book).title = "First"
            try context.save()
        }
        let error = try await second.perform { context in
            try #require(context.registeredObject(for: id) as? Book).pages = 200
            return #expect(throws: PersistenceError.self) { try context.save() }
        }
        #expect(error?.code == .conflict)
        #expect(error?.objectIDs == [id])

        // The first save stands; the second context still has its change and can merge it.
        let (title, pages, hasChanges) = try await second.perform { context in
            let book = try #require(context.registeredObject(for: id) as? Book)
            let pending = context.hasChanges
            context.refresh(book, mergeChanges: true)
            try context.save()
            return (book.title, book.pages, pending)
        }
        #expect(hasChanges)
        #expect(title == "First")
        #expect(pages == 200)
        let stored = try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.existingObject(with: id) as? Book)
            return "\(book.title) \(book.pages)"
        }
        #expect(stored == "First 200")
    }

    @Test(arguments: StoreKind.queryable)
    func deletingAnObjectAnotherContextChangedConflicts(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "a"
            try context.save()
            return tag.objectID
        }
        let deleter = backgroundContext(coordinator)
        try await deleter.perform { context in _ = try context.existingObject(with: id) }
        try await backgroundContext(coordinator).perform { context in
            try #require(try context.existingObject(with: id) as? Tag).label = "b"
            try context.save()
        }
        let error = try await deleter.perform { context in
            context.delete(context.object(with: id))
            return #expect(throws: PersistenceError.self) { try context.save() }
        }
        #expect(error?.code == .conflict)
    }

    @Test(arguments: StoreKind.queryable)
    func manyContextsInsertingAtOnceLoseNothing(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let context = backgroundContext(coordinator)
                    for batch in 0..<10 {
                        try await context.perform { context in
                            for item in 0..<10 {
                                let tag = try Tag(context: context)
                                tag.label = "\(worker)-\(batch)-\(item)"
                            }
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let labels = try await backgroundContext(coordinator).perform { context in
            Set(try context.fetch(FetchRequest<Tag>()).map(\.label))
        }
        #expect(labels.count == 800)
    }
}
