import Foundation
import Strata
import Testing

/// Core Data's way of configuring a context (issue 33; `NSManagedObjectContext`'s
/// documentation: `init(concurrencyType:)`, then `persistentStoreCoordinator` or `parent`
/// set before the context is used), as real code writes it:
///
/// ```swift
/// let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// ```
@Suite struct ContextConfigurationTests {
    /// Xcode's app template configures its view context from outside it, right after loading the
    /// stores; the settings take effect as Core Data's do: the author and name in the saves'
    /// notifications, the merge policy in a conflict, automatic merging of a background save.
    @Test func theViewContextIsConfiguredAsXcodesTemplateDoesIt() async throws {
        let container = PersistentContainer(name: "Library", managedObjectModel: try libraryModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try await container.loadPersistentStores()
        container.viewContext.automaticallyMergesChangesFromParent = true
        container.viewContext.mergePolicy = .mergeByPropertyObjectTrump
        container.viewContext.name = "viewContext"
        container.viewContext.transactionAuthor = "app"
        container.viewContext.stalenessInterval = 0
        #expect(container.viewContext.automaticallyMergesChangesFromParent)
        #expect(container.viewContext.mergePolicy == .mergeByPropertyObjectTrump && container.viewContext.name == "viewContext")

        let saves = container.persistentStoreCoordinator.didSaveNotifications
        let id = try await container.viewContext.perform { context in
            #expect(context.transactionAuthor == "app" && context.stalenessInterval == 0, "the same settings inside")
            let tag = try Tag(context: context)
            tag.label = "mine"
            try context.save()
            return tag.objectID
        }
        for await save in saves {
            #expect(save.transactionAuthor == "app" && save.contextName == "viewContext")
            break
        }

        // A background save changes the tag; the view context merges it by itself.
        try await container.performBackgroundTask { context in
            try #require(try context.existingObject(with: id) as? Tag).label = "theirs"
            try context.save()
        }
        var label = ""
        for _ in 0..<200 where label != "theirs" {
            label = try await container.viewContext.perform { try #require(try $0.existingObject(with: id) as? Tag).label }
            if label != "theirs" { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(label == "theirs", "merged automatically")

        // Both change the tag; the view context's policy keeps its own change at its save.
        try await container.viewContext.perform { try #require(try $0.existingObject(with: id) as? Tag).label = "view" }
        container.viewContext.automaticallyMergesChangesFromParent = false
        try await container.performBackgroundTask { context in
            try #require(try context.existingObject(with: id) as? Tag).label = "background"
            try context.save()
        }
        try await container.viewContext.perform { try $0.save() }
        let final = try await container.performBackgroundTask { try #require(try $0.existingObject(with: id) as? Tag).label }
        #expect(final == "view", "mergeByPropertyObjectTrump, set from outside")
    }

    @Test func aContextGivenItsCoordinatorAfterInitSavesAndFetches() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        #expect(context.persistentStoreCoordinator == nil)
        #expect(context.parent == nil)
        context.persistentStoreCoordinator = coordinator
        #expect(context.persistentStoreCoordinator === coordinator)

        try await context.perform { context in
            try Tag(context: context).label = "poetry"
            try context.save()
        }
        let labels = try await backgroundContext(coordinator).perform { context in try context.fetch(FetchRequest<Tag>()).map(\.label) }
        #expect(labels == ["poetry"])
    }

    /// `child.parent = parent`: the child reads the parent's unsaved objects and saves into it;
    /// its coordinator is its parent's, as Core Data's `persistentStoreCoordinator` of a child
    /// context answers.
    @Test func aContextGivenItsParentAfterInitIsAChild() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let parent = ManagedObjectContext(concurrencyType: .privateQueue)
        parent.persistentStoreCoordinator = coordinator
        let id = try await parent.perform { context in
            let tag = try Tag(context: context)
            tag.label = "draft"
            return tag.objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        #expect(child.parent === parent)
        #expect(child.persistentStoreCoordinator === coordinator)
        try await child.perform { context in
            let tag = try #require(try context.existingObject(with: id) as? Tag)
            #expect(tag.label == "draft", "the parent's unsaved object")
            tag.label = "final"
            try context.save()
        }
        let label = try await parent.perform { context in (context.registeredObject(for: id) as? Tag)?.label }
        #expect(label == "final")
    }

    /// Settings made before the coordinator is given are kept; a fetch before it is a typed
    /// error (the context has an empty model and no store), not a crash.
    @Test func beforeItsCoordinatorAContextFailsClearlyAndKeepsItsSettings() async throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        await #expect(throws: (any Error).self) {
            try await context.perform { context in _ = try context.fetch(FetchRequest<Tag>()) }
        }
        try await context.perform { context in
            context.name = "importer"
            context.transactionAuthor = "sync"
            context.mergePolicy = .mergeByPropertyObjectTrump
        }
        context.persistentStoreCoordinator = try await makeCoordinator(libraryModel())
        let (name, author, policy) = try await context.perform { context in (context.name, context.transactionAuthor, context.mergePolicy) }
        #expect(name == "importer")
        #expect(author == "sync")
        #expect(policy == .mergeByPropertyObjectTrump)
        try await context.perform { context in
            try Tag(context: context).label = "after"
            try context.save()
        }
    }
}
