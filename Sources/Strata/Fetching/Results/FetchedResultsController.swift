import Foundation
import Logging

/// A fetch's result kept current as the context's objects change, in sections: Core Data's
/// `NSFetchedResultsController` without the `NS`.
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("author.name"), .ascending("title")]),
///     managedObjectContext: viewContext, sectionNameKeyPath: "author.name", cacheName: nil)
/// controller.delegate = self
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(item: 0, section: 0))
/// ```
///
/// Use a controller where its context's objects are used: on the main actor for a main-queue
/// context (``PersistentContainer/viewContext``), inside `perform` for a private-queue one.
/// ``performFetch()`` checks that (with the context's `assumeIsolated`) and stops the program
/// when called elsewhere, as Core Data's concurrency debugging does; the controller is told of
/// changes on that executor.
///
/// After ``performFetch()`` it follows everything that changes the context's objects: the
/// context's own inserts, updates and deletes when it processes pending changes (at the end of
/// each `perform`, before a save or a fetch), saves, merges of other contexts' saves — and,
/// through them, batch requests and other processes' and servers' saves that the context merges
/// (``ManagedObjectContext/automaticallyMergesChangesFromParent``) — refreshes, resets and
/// rollbacks (a reload). An update that moves an object across the predicate is an insertion or
/// a deletion; a change of a sort key is a move; a change of the section key moves the object
/// between sections, which appear and disappear. Changes to other objects that the predicate or
/// a sort key reads through a relationship (`author.name`) count too: the result is then
/// fetched again and compared. ``FetchRequest/fetchLimit`` and ``FetchRequest/fetchOffset``
/// apply to ``performFetch()`` only; later changes are followed without a window, as in Core Data.
///
/// `cacheName` is accepted and kept: Core Data's on-disk section cache is an iOS detail; a
/// controller here computes its sections in memory at each fetch.
public final class FetchedResultsController<Result: ManagedObject> {
    public var fetchRequest: FetchRequest<Result> { tracker.fetchRequest }
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; `nil` for one section named `""`.
    public var sectionNameKeyPath: String? { tracker.sectionNameKeyPath }
    public let cacheName: String?
    /// Told of every change to the result (weakly held, as in Core Data).
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?

    /// The result, in order; `nil` before ``performFetch()``.
    public var fetchedObjects: [Result]? {
        guard hasFetched else { return nil }
        if let objects { return objects }
        // Made when asked, once per change: a change to one object costs no copy of the result.
        let made = results.entries.all.compactMap { $0.object as? Result }
        objects = made
        return made
    }
    private var hasFetched = false
    private var objects: [Result]?
    private let tracker: ResultsTracker<Result>
    private var results: OrderedResults { tracker.results }

    /// A controller of `fetchRequest`'s result in `context`, sectioned by `sectionNameKeyPath`.
    /// Nothing is read until ``performFetch()``, which checks the request.
    public init(
        fetchRequest: FetchRequest<Result>, managedObjectContext context: ManagedObjectContext, sectionNameKeyPath: String?,
        cacheName: String?
    ) {
        tracker = ResultsTracker(fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath)
        managedObjectContext = context
        self.cacheName = cacheName
    }

    /// Fetches the result and starts following changes.
    ///
    /// - Throws: ``PersistenceError`` `.unsupportedRequest` when the request has no sort
    ///   descriptors, or the section key path is not the first sort descriptor's key (Core
    ///   Data's requirements), before any fetch; what ``ManagedObjectContext/fetch(_:)->[Result]`` throws.
    public func performFetch() throws {
        try tracker.validate()
        try onContext { graph in
            try tracker.fetch(in: graph)
            publish()
            graph.addChangeObserver(self)
        }
    }

    /// The result's sections, in order; `nil` before ``performFetch()``.
    public var sections: [FetchedResultsSectionInfo<Result>]? {
        guard let fetchedObjects else { return nil }  // made once per change, shared by the sections
        return zip(results.sections.all, results.sectionRanges).map { section, range in
            FetchedResultsSectionInfo(name: section.name, indexTitle: indexTitle(for: section.name), range: range, all: fetchedObjects)
        }
    }

    /// The index titles of the sections, in order, each once.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return results.sections.all.compactMap { indexTitle(for: $0.name) }.filter { seen.insert($0).inserted }
    }

    /// The object at `indexPath` (section, then item).
    ///
    /// - Precondition: `indexPath` is in the result, as Core Data requires.
    public func object(at indexPath: IndexPath) -> Result {
        precondition(
            hasFetched && indexPath.count == 2 && (0..<results.sections.count).contains(indexPath[0]), "no section \(indexPath) in the fetched results")
        let range = results.sections.range(of: indexPath[0])
        precondition(indexPath[1] >= 0 && indexPath[1] < range.count, "no object at \(indexPath) in the fetched results")
        // Read where the result keeps it (O(log n)), not from a copy of the whole result.
        guard let object = results.entries[range.lowerBound + indexPath[1]].object as? Result else {
            preconditionFailure("the fetched results hold an object that is not a \(Result.self)")
        }
        return object
    }

    /// Where `object` is in the result; `nil` when it is not in it.
    public func indexPath(forObject object: Result) -> IndexPath? {
        results.indexPath(of: object)
    }

    /// The index title of a section: what the delegate gives, else the name's first letter,
    /// capitalised (Core Data's default).
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The section whose index title is `title`; `sectionIndex` is where the title is among
    /// ``sectionIndexTitles`` (Core Data's `section(forSectionIndexTitle:at:)`).
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        results.sections.all.firstIndex { indexTitle(for: $0.name) == title } ?? sectionIndex
    }

    /// The result as identifiers, for a diffable data source.
    public var snapshot: FetchedResultsSnapshot { tracker.snapshot }

    /// Runs `body` with the context's object graph: the context's executor must be the one
    /// running (Core Data's rule: a controller is used where its context's objects are);
    /// otherwise `assumeIsolated` stops the program.
    private func onContext<T>(_ body: (ObjectGraph) throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            // Safe: `assumeIsolated` runs the closure at once, on this thread, after checking
            // that this thread is on the context's executor. The controller, the graph and the
            // objects the closure reaches are not Sendable; they are used only on that executor,
            // here and wherever the controller is used, so nothing crosses to another thread.
            nonisolated(unsafe) let body = body
            nonisolated(unsafe) var result: Swift.Result<T, any Error>?
            managedObjectContext.assumeIsolated { context in
                let graph = context.graph
                result = Swift.Result { try body(graph) }
            }
            return try result!.get()
        }
    }

    private func indexTitle(for sectionName: String) -> String? {
        delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) ?? sectionIndexTitle(forSectionName: sectionName)
    }

    private func publish() {
        hasFetched = true
        objects = nil
    }

    /// Publishes a changed result and tells the delegate what moved.
    private func tell(_ outcome: OrderedResults.Outcome?) {
        guard let outcome else { return }
        publish()
        guard let delegate else { return }
        if let delegate = delegate as? any FetchedResultsControllerSnapshotDelegate<Result> {
            return delegate.controller(self, didChangeContentWith: snapshot)
        }
        delegate.controllerWillChangeContent(self)
        for section in outcome.deletedSections.reversed() {
            let info = FetchedResultsSectionInfo(
                name: section.name, indexTitle: indexTitle(for: section.name), range: 0..<section.objects.count,
                all: section.objects.compactMap { $0 as? Result })
            delegate.controller(self, didChange: info, atSectionIndex: section.index, for: .delete)
        }
        for section in outcome.insertedSections {
            let objects = results.objects(inSection: section.index).compactMap { $0 as? Result }
            let info = FetchedResultsSectionInfo(
                name: section.name, indexTitle: indexTitle(for: section.name), range: 0..<objects.count, all: objects)
            delegate.controller(self, didChange: info, atSectionIndex: section.index, for: .insert)
        }
        for kind in [FetchedResultsChangeType.delete, .insert, .move, .update] {
            for change in outcome.objects where change.type == kind {
                guard let object = change.object as? Result else { continue }
                delegate.controller(self, didChange: object, at: change.old, for: kind, newIndexPath: change.new)
            }
        }
        delegate.controllerDidChangeContent(self)
    }
}

extension FetchedResultsController: ContextChangeObserver {
    func contextDidChange(objects: [ManagedObject], elsewhere: Set<ManagedObjectID>, in graph: ObjectGraph) {
        tell(tracker.follow(objects: objects, elsewhere: elsewhere, in: graph))
    }

    func contextDidReload(in graph: ObjectGraph) {
        tell(tracker.refetch(in: graph))
    }
}
