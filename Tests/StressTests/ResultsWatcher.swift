import Foundation
import Strata
import Testing

/// A fetched results controller and a watched fetch on a main-queue context that merges every
/// save as the stress test's contexts make them (issue 32). Every round the controller's result
/// must hold together (ordered, no deleted or repeated object, sections as the objects' keys);
/// at the end, once the merges have caught up, the controller's result and the watched fetch's
/// last snapshot must both be a fresh fetch's.
@MainActor final class ResultsWatcher {
    let view: ManagedObjectContext
    let controller: FetchedResultsController<ManagedObject>
    nonisolated static let request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [.ascending("batch"), .ascending("label")])
    private var lastUpdate: FetchedResultsUpdate?
    private var watching: Task<Void, any Error>?

    init(_ coordinator: PersistentStoreCoordinator) async throws {
        view = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        try await view.perform { $0.automaticallyMergesChangesFromParent = true }
        controller = FetchedResultsController(fetchRequest: Self.request, managedObjectContext: view, sectionNameKeyPath: "batch", cacheName: nil)
        try controller.performFetch()
        let updates = view.changes(of: Self.request, sectionNameKeyPath: "batch")
        watching = Task { [weak self] in
            for try await update in updates { self?.lastUpdate = update }
        }
    }

    /// What is wrong with the controller's result now, if anything.
    func problems() throws -> [String] {
        let objects = controller.fetchedObjects ?? []
        var problems: [String] = []
        if Set(objects.map(ObjectIdentifier.init)).count != objects.count { problems.append("an object twice") }
        if objects.contains(where: \.isDeleted) { problems.append("a deleted object") }
        let keys = try objects.map { (try $0.value(forKey: "batch") as? String ?? "", try $0.value(forKey: "label") as? String ?? "") }
        if zip(keys, keys.dropFirst()).contains(where: { $0 > $1 }) { problems.append("out of order") }
        let sections = (controller.sections ?? []).map { ($0.name, $0.numberOfObjects) }
        var expected: [(String, Int)] = []
        for key in keys {
            if expected.last?.0 == key.0 { expected[expected.count - 1].1 += 1 } else { expected.append((key.0, 1)) }
        }
        if !sections.elementsEqual(expected, by: { $0 == $1 }) { problems.append("sections are not the objects' batches") }
        return problems
    }

    /// Waits (up to `seconds`) until the controller's result and the watched fetch's last
    /// snapshot are a fresh fetch's, as they must be once every save is merged.
    func caughtUp(within seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let fresh = try await view.perform { try $0.fetchObjectIDs(Self.request) }
            if controller.fetchedObjects?.map(\.objectID) == fresh, lastUpdate?.snapshot.itemIdentifiers == fresh { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let fresh = try await view.perform { try $0.fetchObjectIDs(Self.request) }
        let shown = controller.fetchedObjects?.map(\.objectID) ?? []
        let watched = lastUpdate?.snapshot.itemIdentifiers ?? []
        print("watcher: controller \(shown.count), watched \(watched.count), fresh \(fresh.count); "
            + "only in the controller \(Set(shown).subtracting(fresh).map(\.description)), only in the fetch \(Set(fresh).subtracting(shown).map(\.description)), "
            + "same set but another order: \(Set(shown) == Set(fresh))")
        for object in controller.fetchedObjects ?? [] where !fresh.contains(object.objectID) {
            print("watcher: shown \(object.objectID) deleted \(object.isDeleted) fault \(object.isFault) \(try object.value(forKey: "batch") ?? "-") \(try object.value(forKey: "label") ?? "-")")
        }
        return false
    }

    func stop() {
        watching?.cancel()
    }
}
