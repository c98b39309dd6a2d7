import Foundation
import Strata

/// Issue 32's measure: a fetched results controller of every person by score, on a main-queue
/// context, and single-object changes (a score set, the context's pending changes processed,
/// as at the end of a `perform`): what the controller costs per change, beside fetching the
/// result again after each change.
@MainActor public final class ControllerWorkload {
    let context: ManagedObjectContext
    let controller: FetchedResultsController<Person>
    let request = FetchRequest<Person>(sortDescriptors: [.ascending("score")])
    public private(set) var moves = 0

    /// Opens `url` and fetches the controller's result.
    public init(_ url: URL) async throws {
        context = try await StrataPeer.open(url, concurrencyType: .mainQueue)
        controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
    }

    /// `count` changes of one person's score each, followed by the controller; returns the
    /// time per change.
    public func changeOneAtATime(_ count: Int, refetching: Bool) throws -> Duration {
        let people = controller.fetchedObjects ?? []
        var random = SystemRandomNumberGenerator()
        let clock = ContinuousClock()
        let start = clock.now
        for step in 0..<count {
            let person = people[(step &* 7_919) % people.count]
            person.score = Double.random(in: 0..<1, using: &random)
            try context.assumeIsolated { context in
                context.processPendingChanges()
                if refetching { _ = try context.fetch(request).count }
            }
        }
        return (clock.now - start) / count
    }
}
