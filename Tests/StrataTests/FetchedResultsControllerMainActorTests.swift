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
}

extension FetchedResultsControllerMainActorTests.Delegate: @MainActor FetchedResultsControllerDelegate {
    typealias Result = Tag

    func controllerDidChangeContent(_ controller: FetchedResultsController<Tag>) {
        model.titles = controller.fetchedObjects?.map(\.label) ?? []
        model.changes += 1
    }
}
