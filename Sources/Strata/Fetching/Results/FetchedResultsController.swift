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
/// Its methods check that (with the context's `assumeIsolated`) and stop the program when
/// called elsewhere, as Core Data's concurrency debugging does.
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
    public let fetchRequest: FetchRequest<Result>
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; `nil` for one section named `""`.
    public let sectionNameKeyPath: String?
    public let cacheName: String?
    /// Told of every change to the result (weakly held, as in Core Data).
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?

    /// The result, in order; `nil` before ``performFetch()``.
    public private(set) var fetchedObjects: [Result]?
    private var results: OrderedResults
    private var layout: EntityLayout?
    private var entityNames: Set<String> = []
    private var readsRelatedObjects = false
    private static var logger: Logger { Logger(label: "strata.fetched-results") }

    /// A controller of `fetchRequest`'s result in `context`, sectioned by `sectionNameKeyPath`.
    /// Nothing is read until ``performFetch()``, which checks the request.
    public init(
        fetchRequest: FetchRequest<Result>, managedObjectContext context: ManagedObjectContext, sectionNameKeyPath: String?,
        cacheName: String?
    ) {
        self.fetchRequest = fetchRequest
        managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        results = OrderedResults(sortDescriptors: fetchRequest.sortDescriptors)
    }

    /// Fetches the result and starts following changes.
    ///
    /// - Throws: ``PersistenceError`` `.unsupportedRequest` when the request has no sort
    ///   descriptors, or the section key path is not the first sort descriptor's key (Core
    ///   Data's requirements), before any fetch; what ``ManagedObjectContext/fetch(_:)`` throws.
    public func performFetch() throws {
        guard !fetchRequest.sortDescriptors.isEmpty else {
            throw PersistenceError(.unsupportedRequest, "a fetched results controller needs a fetch request with sort descriptors")
        }
        if let sectionNameKeyPath, fetchRequest.sortDescriptors[0].key != sectionNameKeyPath {
            throw PersistenceError(
                .unsupportedRequest,
                "the first sort descriptor of a sectioned controller must sort by its section key '\(sectionNameKeyPath)', not '\(fetchRequest.sortDescriptors[0].key)'"
            )
        }
        try onContext { graph in
            let layout = try graph.layout(for: fetchRequest)
            if let sectionNameKeyPath {
                _ = try ValueExpression.keyPath(sectionNameKeyPath).check(on: layout, model: graph.model, variables: [:])
            }
            graph.processPendingChangesAndTell()
            let objects = try graph.fetch(fetchRequest)
            self.layout = layout
            entityNames = Set(fetchRequest.includesSubentities ? layout.hierarchyNames : [layout.name])
            readsRelatedObjects = fetchRequest.predicate?.readsRelatedObjects == true
                || fetchRequest.sortDescriptors.contains { $0.key.contains(".") } || sectionNameKeyPath?.contains(".") == true
            results.load(try objects.map { object in
                guard let entry = try entry(for: object, in: graph) else {
                    throw PersistenceError(.storeBrokeContract, objectIDs: [object.objectID], "a fetched object does not match its request")
                }
                return entry
            })
            publish()
            graph.addChangeObserver(self)
        }
    }

    /// The result's sections, in order; `nil` before ``performFetch()``.
    public var sections: [FetchedResultsSectionInfo<Result>]? {
        guard let fetchedObjects else { return nil }
        return zip(results.sections, results.sectionRanges).map { section, range in
            FetchedResultsSectionInfo(name: section.name, indexTitle: indexTitle(for: section.name), range: range, all: fetchedObjects)
        }
    }

    /// The index titles of the sections, in order, each once.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return results.sections.compactMap { indexTitle(for: $0.name) }.filter { seen.insert($0).inserted }
    }

    /// The object at `indexPath` (section, then item).
    ///
    /// - Precondition: `indexPath` is in the result, as Core Data requires.
    public func object(at indexPath: IndexPath) -> Result {
        let ranges = results.sectionRanges
        precondition(indexPath.count == 2 && ranges.indices.contains(indexPath[0]), "no section \(indexPath) in the fetched results")
        let range = ranges[indexPath[0]]
        precondition(indexPath[1] >= 0 && indexPath[1] < range.count, "no object at \(indexPath) in the fetched results")
        return fetchedObjects![range.lowerBound + indexPath[1]]
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
        results.sections.firstIndex { indexTitle(for: $0.name) == title } ?? sectionIndex
    }

    /// The result as identifiers, for a diffable data source.
    public var snapshot: FetchedResultsSnapshot {
        let objects = fetchedObjects ?? []
        return FetchedResultsSnapshot(
            sections: zip(results.sections, results.sectionRanges).map { section, range in
                FetchedResultsSnapshot.Section(identifier: section.name, itemIdentifiers: objects[range].map(\.objectID))
            })
    }

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

    // MARK: Following changes

    /// `object`'s place in the result, or `nil` when it is not in it.
    private func entry(for object: ManagedObject, in graph: ObjectGraph) throws -> OrderedResults.Entry? {
        guard object.graph === graph, !object.isDeleted, entityNames.contains(object.entity.name) else { return nil }
        object.willAccessValues()
        let evaluator = PredicateEvaluator(source: ContextObjectSource(graph: graph, includesPendingChanges: true))
        let ref = EvaluationValue.object(ObjectRef(id: object.objectID, row: object.storage, layout: object.layout))
        if let predicate = fetchRequest.predicate, !(try evaluator.evaluate(predicate, on: ref)) { return nil }
        let keys = try fetchRequest.sortDescriptors.map { try evaluator.value(.keyPath($0.key), on: ref) }
        let section = try sectionNameKeyPath.map { try evaluator.value(.keyPath($0), on: ref).sectionName } ?? ""
        return OrderedResults.Entry(object: object, keys: keys, section: section, tie: OrderedResults.Tie(object.objectID))
    }

    private func publish() {
        fetchedObjects = results.entries.compactMap { $0.object as? Result }
    }

    /// Applies changed objects and tells the delegate what moved. An object that stays where it
    /// was is told as updated when `isUpdate` says it changed itself.
    fileprivate func follow(_ objects: [ManagedObject], in graph: ObjectGraph, isUpdate: (ManagedObject) -> Bool) {
        let changes = objects.map { object in
            do {
                return OrderedResults.Change(object: object, entry: try entry(for: object, in: graph), isUpdate: isUpdate(object))
            } catch {
                Self.logger.error("cannot place a changed object in a fetched result", metadata: ["object": "\(object.objectID)", "error": "\(error)"])
                return OrderedResults.Change(object: object, entry: nil, isUpdate: false)
            }
        }
        let oldSections = sections ?? []
        let outcome = results.apply(changes)
        guard !outcome.isEmpty else { return }
        publish()
        tell(outcome, oldSections: oldSections)
    }

    private func tell(_ outcome: OrderedResults.Outcome, oldSections: [FetchedResultsSectionInfo<Result>]) {
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        let newSections = sections ?? []
        for (index, _) in outcome.deletedSections.reversed() where oldSections.indices.contains(index) {
            delegate.controller(self, didChange: oldSections[index], atSectionIndex: index, for: .delete)
        }
        for (index, _) in outcome.insertedSections where newSections.indices.contains(index) {
            delegate.controller(self, didChange: newSections[index], atSectionIndex: index, for: .insert)
        }
        for kind in [FetchedResultsChangeType.delete, .insert, .move, .update] {
            for change in outcome.objects where change.type == kind {
                guard let object = change.object as? Result else { continue }
                delegate.controller(self, didChange: object, at: change.old, for: kind, newIndexPath: change.new)
            }
        }
        delegate.controllerDidChangeContent(self)
        delegate.controller(self, didChangeContentWith: snapshot)
    }
}

extension FetchedResultsController: ContextChangeObserver {
    func contextDidChange(objects: [ManagedObject], elsewhere: Set<ManagedObjectID>) {
        try? onContext { graph in
            var changed = objects
            for id in elsewhere where entityNames.contains(id.entityName) {
                changed.append(graph.object(for: id))  // another save's object this context did not hold: it may join
            }
            if readsRelatedObjects, objects.contains(where: { !entityNames.contains($0.entity.name) }) || !elsewhere.isEmpty {
                return refetch(in: graph, changed: Set(changed.map(ObjectIdentifier.init)))
            }
            follow(changed, in: graph) { _ in true }
        }
    }

    func contextDidReload() {
        try? onContext { graph in refetch(in: graph, changed: []) }
    }

    /// Fetches the result again and tells the delegate how it differs: after a reset, or a
    /// change the result may depend on through a relationship (`changed`: the objects that
    /// changed themselves, told as updated where they stay).
    private func refetch(in graph: ObjectGraph, changed: Set<ObjectIdentifier>) {
        do {
            // Objects a reset let go are no longer the context's: they leave the result, and
            // the context's objects for the same IDs join it.
            let fetched = try graph.fetch(fetchRequest)
            follow(results.entries.map(\.object) + fetched, in: graph) { changed.contains(ObjectIdentifier($0)) }
        } catch {
            Self.logger.error("cannot fetch a controller's result again", metadata: ["error": "\(error)"])
        }
    }
}
