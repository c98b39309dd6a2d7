import Foundation
import Strata

/// Issue 32's measure: a fetched results controller of every person by score, on a main-queue
/// context, following single-object changes (a score set, then the context's pending changes
/// processed as at the end of a `perform`, or a save): what the controller costs per change,
/// beside fetching the result again after each change, and beside nothing following at all.
@MainActor public final class ControllerWorkload {
    /// What follows the result as people change.
    public enum Follower: String, Sendable {
        /// A ``FetchedResultsController`` of the result.
        case controller
        /// The result fetched again after each change: what a program without a controller does.
        case fetchAgain
        /// Nothing: the change alone, the baseline of the two others.
        case nothing
    }

    let context: ManagedObjectContext
    let controller: FetchedResultsController<Person>?
    let follower: Follower
    let request = FetchRequest<Person>(sortDescriptors: [.ascending("score")])
    let people: [Person]
    var step = 0
    var random = SystemRandomNumberGenerator()

    /// Opens `url` and fetches the result, followed by `follower`.
    public init(_ url: URL, following follower: Follower = .controller) async throws {
        context = try await StrataPeer.open(url, concurrencyType: .mainQueue)
        self.follower = follower
        // The result's objects come from a controller either way (objects cannot leave a
        // context's isolation otherwise); it is kept, and follows, only for `.controller`
        // (the context holds its observers weakly).
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        people = controller.fetchedObjects ?? []
        self.controller = follower == .controller ? controller : nil
    }

    /// The workload one benchmark process measures, made at its first use: a scratch copy of
    /// the SQLite fixture of `count` people (saves change it), opened and fetched.
    public static func shared(count: Int, following follower: Follower) async throws -> ControllerWorkload {
        if let made = made[follower.rawValue] { return made }
        let workload = try await ControllerWorkload(Fixtures.scratchCopy(of: StrataPeer.fixture(count: count, sqlite: true)), following: follower)
        made[follower.rawValue] = workload
        return workload
    }
    private static var made: [String: ControllerWorkload] = [:]

    /// One person's score changed and saved; the follower follows.
    public func saveOneChange() throws {
        change()
        let request = request
        let fetchesAgain = follower == .fetchAgain
        try context.assumeIsolated { context in
            try context.save()
            if fetchesAgain { _ = try context.fetch(request).count }
        }
    }

    /// `count` changes of one person's score each, the context's pending changes processed
    /// after each (no save: the controller's own cost); returns the time per change.
    public func changeOneAtATime(_ count: Int) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let request = request
        let fetchesAgain = follower == .fetchAgain
        for _ in 0..<count {
            change()
            try context.assumeIsolated { context in
                context.processPendingChanges()
                if fetchesAgain { _ = try context.fetch(request).count }
            }
        }
        return (clock.now - start) / count
    }

    private func change() {
        let person = people[(step &* 7_919) % people.count]
        step += 1
        person.score = Double.random(in: 0..<1, using: &random)
    }
}
