import Logging

/// A fetch's result followed through a context's changes: what a ``FetchedResultsController``
/// and an observation (``ManagedObjectContext/changes(of:sectionNameKeyPath:)``) share. Used on
/// its context's executor only, with the context's graph handed in.
final class ResultsTracker<Result: ManagedObject> {
    let fetchRequest: FetchRequest<Result>
    let sectionNameKeyPath: String?
    private(set) var results: OrderedResults
    private var entityNames: Set<String> = []
    private var readsRelatedObjects = false
    private static var logger: Logger { Logger(label: "strata.fetched-results") }

    init(fetchRequest: FetchRequest<Result>, sectionNameKeyPath: String?) {
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = sectionNameKeyPath
        results = OrderedResults(sortDescriptors: fetchRequest.sortDescriptors)
    }

    /// Core Data's requirements of a controller's request, checked before any fetch.
    func validate() throws {
        guard !fetchRequest.sortDescriptors.isEmpty else {
            throw PersistenceError(.unsupportedRequest, "a fetched results controller needs a fetch request with sort descriptors")
        }
        if let sectionNameKeyPath, fetchRequest.sortDescriptors[0].key != sectionNameKeyPath {
            throw PersistenceError(
                .unsupportedRequest,
                "the first sort descriptor of a sectioned controller must sort by its section key '\(sectionNameKeyPath)', not '\(fetchRequest.sortDescriptors[0].key)'"
            )
        }
    }

    /// Checks the request, processes the context's pending changes and fetches the result.
    func fetch(in graph: ObjectGraph) throws {
        try validate()
        let layout = try graph.layout(for: fetchRequest)
        if let sectionNameKeyPath {
            _ = try ValueExpression.keyPath(sectionNameKeyPath).check(on: layout, model: graph.model, variables: [:])
        }
        graph.processPendingChangesAndTell()
        let objects = try graph.fetch(fetchRequest)
        entityNames = Set(fetchRequest.includesSubentities ? layout.hierarchyNames : [layout.name])
        readsRelatedObjects = fetchRequest.predicate?.readsRelatedObjects == true
            || fetchRequest.sortDescriptors.contains { $0.key.contains(".") } || sectionNameKeyPath?.contains(".") == true
        // An object the store matched that the context's unsaved changes take out is left out.
        results.load(try objects.compactMap { try entry(for: $0, in: graph) })
    }

    /// Applies what the context says changed; `nil` when the result did not change.
    func follow(objects: [ManagedObject], elsewhere: Set<ManagedObjectID>, in graph: ObjectGraph) -> OrderedResults.Outcome? {
        var changed = objects
        for id in elsewhere where entityNames.contains(id.entityName) {
            changed.append(graph.object(for: id))  // another save's object this context did not hold: it may join
        }
        if readsRelatedObjects, objects.contains(where: { !entityNames.contains($0.entity.name) }) || !elsewhere.isEmpty {
            return refetch(in: graph, changed: Set(changed.map(ObjectIdentifier.init)))
        }
        // Faults among them (a merge's) are read together, not one query each as they fire.
        graph.generation.prefetch(changed.filter { $0.isFault && $0.graph === graph }.map(\.objectID))
        return apply(changed, in: graph) { _ in true }
    }

    /// Fetches the result again and says how it differs: after a reset, or a change the result
    /// may depend on through a relationship (`changed`: the objects that changed themselves,
    /// told as updated where they stay).
    func refetch(in graph: ObjectGraph, changed: Set<ObjectIdentifier> = []) -> OrderedResults.Outcome? {
        do {
            // Objects a reset let go are no longer the context's: they leave the result, and
            // the context's objects for the same IDs join it.
            let fetched = try graph.fetch(fetchRequest)
            return apply(results.entries.all.map(\.object) + fetched, in: graph) { changed.contains(ObjectIdentifier($0)) }
        } catch {
            Self.logger.error("cannot fetch a result again", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The result as identifiers.
    var snapshot: FetchedResultsSnapshot {
        let entries = results.entries.all
        return FetchedResultsSnapshot(
            sections: zip(results.sections.all, results.sectionRanges).map { section, range in
                FetchedResultsSnapshot.Section(identifier: section.name, itemIdentifiers: entries[range].map(\.object.objectID))
            })
    }

    private func apply(_ objects: [ManagedObject], in graph: ObjectGraph, isUpdate: (ManagedObject) -> Bool) -> OrderedResults.Outcome? {
        let changes = objects.map { object in
            do {
                return OrderedResults.Change(object: object, entry: try entry(for: object, in: graph), isUpdate: isUpdate(object))
            } catch {
                Self.logger.error("cannot place a changed object in a result", metadata: ["object": "\(object.objectID)", "error": "\(error)"])
                return OrderedResults.Change(object: object, entry: nil, isUpdate: false)
            }
        }
        let outcome = results.apply(changes)
        return outcome.isEmpty ? nil : outcome
    }

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
}
