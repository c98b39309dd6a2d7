import Foundation
import Strata
import Testing

/// A controller as an app uses one (Core Data's documentation: a controller of the main
/// queue's context feeds a table view): held by main-actor code, on a main-queue context,
/// with a main-actor delegate, following another context's saves that the view context merges.
@Suite struct FetchedResultsControllerMainActorTests {
    @MainActor final class TitlesModel {
        var titles: [String] = []
        var changes = 0
    }

    @MainActor final class Delegate {
        let model: TitlesModel
        init(model: TitlesModel) { self.model = model }
    }

    @MainActor @Test func aMainActorControllerFollowsMergedSaves() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let view = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        try await view.perform { $0.automaticallyMergesChangesFromParent = true }
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Tag>(sortDescriptors: [.ascending("label")]), managedObjectContext: view, sectionNameKeyPath: nil,
            cacheName: nil)
        let model = TitlesModel()
        let delegate = Delegate(model: model)
        controller.delegate = delegate
        try controller.performFetch()
        #expect(controller.fetchedObjects?.isEmpty == true)

        var changes = view.objectsDidChangeNotifications.makeAsyncIterator()
        try await backgroundContext(coordinator).perform { context in
            for label in ["b", "a"] { try Tag(context: context).label = label }
            try context.save()
        }
        _ = await changes.next()
        #expect(controller.fetchedObjects?.map(\.label) == ["a", "b"])
        #expect(model.titles == ["a", "b"])
        #expect(model.changes == 1)
    }

    /// A child context's save pushes its changes into the parent (Core Data's nested
    /// contexts), which a main-queue parent announces by itself; a controller of the parent
    /// follows them, and the parent's own save, which gives the child's new object its
    /// permanent ID, leaves the result as it is.
    @MainActor @Test func aChildContextsSaveReachesTheParentsController() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            for label in ["b", "d"] { try Tag(context: context).label = label }
            try context.save()
        }
        let view = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Tag>(sortDescriptors: [.ascending("label")]), managedObjectContext: view, sectionNameKeyPath: nil,
            cacheName: nil)
        let model = TitlesModel()
        let delegate = Delegate(model: model)
        controller.delegate = delegate
        try controller.performFetch()
        #expect(controller.fetchedObjects?.map(\.label) == ["b", "d"])

        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: view)
        var changes = view.objectsDidChangeNotifications.makeAsyncIterator()
        try await child.perform { context in
            let tags = try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")]))
            try Tag(context: context).label = "a"
            tags[0].label = "e"
            context.delete(tags[1])
            try context.save()
        }
        // Announced on the main queue's next turn, as Core Data's run loop does: nobody here
        // calls processPendingChanges.
        _ = await changes.next()
        #expect(controller.fetchedObjects?.map(\.label) == ["a", "e"])
        #expect(model.titles == ["a", "e"])

        try await view.perform { try $0.save() }
        #expect(controller.fetchedObjects?.map(\.label) == ["a", "e"])
        #expect(controller.fetchedObjects?.allSatisfy { !$0.objectID.isTemporaryID } == true)
        let stored = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).map(\.label)
        }
        #expect(stored == ["a", "e"])
    }
}

extension FetchedResultsControllerMainActorTests.Delegate: @MainActor FetchedResultsControllerDelegate {
    typealias Result = Tag

    func controllerDidChangeContent(_ controller: FetchedResultsController<Tag>) {
        model.titles = controller.fetchedObjects?.map(\.label) ?? []
        model.changes += 1
    }
}
