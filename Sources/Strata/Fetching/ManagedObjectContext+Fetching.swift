import Dispatch
import Foundation
import HashTreeCollections
import OrderedCollections

extension ManagedObjectContext {
    /// The objects a request describes, read from the latest generation (the one the context is
    /// pinned to, if it is) and, unless the request says otherwise, its unsaved changes. Each is
    /// the context's one object for its ID; those it had not registered are faults that hold
    /// their values, unless ``FetchRequest/returnsObjectsAsFaults`` is `false`.
    ///
    /// - Throws: ``PersistenceError`` with code `.unknownEntity` when the model has no such
    ///   entity or its class is not `Result`, `.unsupportedRequest` for a prefetching key path
    ///   through something other than relationships; ``FetchPredicateError`` for a predicate or
    ///   sort key that names a key the entity does not have, or that cannot be evaluated.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        processPendingChanges()
        return try graph.fetch(request)
    }

    /// The IDs of the objects a request describes (Core Data's `.managedObjectIDResultType`),
    /// without making objects; the SQL stores read only the IDs when they answer alone.
    public func fetchObjectIDs<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [ManagedObjectID] {
        processPendingChanges()
        graph.beginRead()
        defer { graph.endRead() }
        if let (ids, _) = try graph.matchIDsWithoutRows(for: request) { return ids }
        return try graph.matches(for: request, sorted: true).map(\.id)
    }

    /// How many objects a request would fetch (Core Data's `.countResultType`).
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
        processPendingChanges()
        graph.beginRead()
        defer { graph.endRead() }
        if let count = try graph.storeCount(for: request) { return count }
        return try graph.matches(for: request, sorted: !request.sortDescriptors.isEmpty && (request.fetchLimit > 0 || request.fetchOffset > 0)).count
    }

    /// The objects a request describes as dictionaries of values (Core Data's
    /// `.dictionaryResultType`): ``FetchRequest/propertiesToFetch`` by name (every attribute when
    /// `nil`), grouped by ``FetchRequest/propertiesToGroupBy``, filtered by
    /// ``FetchRequest/havingPredicate``. Relationships give object IDs.
    public func fetchDictionaries<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [[String: any Sendable]] {
        processPendingChanges()
        graph.beginRead()
        defer { graph.endRead() }
        return try graph.dictionaries(for: request)
    }
}

extension ObjectGraph {
    /// ``ManagedObjectContext/fetch(_:)->[Result]`` once pending changes are processed.
    func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        beginRead()
        defer { endRead() }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try checkPrefetching(request.relationshipKeyPathsForPrefetching, from: layout(for: request))
        }
        var taken: [ManagedObjectID] = []
        defer { announce(taken, registered: true) }  // to each incremental store, once
        let values = request.includesPropertyValues
        if request.fetchBatchSize > 0, values, let (ids, layout) = try matchIDsWithoutRows(for: request) {
            registered.reserveCapacity(registered.count + ids.count)
            return registerInBatches(
                ids, layout: layout, batchSize: request.fetchBatchSize, prefetching: request.relationshipKeyPathsForPrefetching, taken: &taken
            ).compactMap { $0 as? Result }
        }
        let matches = try matches(for: request, sorted: true)
        registered.reserveCapacity(registered.count + matches.count)
        let asFaults = request.returnsObjectsAsFaults || !values
        let now = DispatchTime.now().uptimeNanoseconds
        var refetched: [ManagedObject] = []
        // Refreshed objects may move in a controller's result.
        defer { tellObservers(objects: refetched) }
        let objects = matches.map { ref in
            let object: ManagedObject
            if let known = registered[ref.id] {
                object = known
                if request.shouldRefreshRefetchedObjects, values, !object.isFault, !object.isInserted {
                    refetched.append(object)
                    refresh(object, toFetched: ref.stored, at: now)
                }
                guard object.isFault else { return object }
                if values { object.cache(ref.stored, at: now) }
            } else if asFaults {
                object = register(id: ref.id, stored: nil, layout: ref.layout, announcing: false)
                if values { object.cache(ref.stored, at: now) }
                taken.append(ref.id)
            } else {
                object = register(id: ref.id, stored: ref.stored, layout: ref.layout, announcing: false)
                taken.append(ref.id)
            }
            if !asFaults, object.isFault { fulfillFault(object) }
            return object
        }
        if values, !request.relationshipKeyPathsForPrefetching.isEmpty {
            prefetch(request.relationshipKeyPathsForPrefetching, from: objects, at: now)
        }
        return objects.compactMap { $0 as? Result }
    }

    /// The entity a request without an entity name fetches: the one whose class is `type`
    /// (its layout first, so a class shared by a hierarchy names the entity built for it).
    func entityName(ofClass type: ManagedObject.Type) -> String? {
        model.layouts(forClass: type).first?.name ?? model.entities.first { $0.managedObjectClass == type }?.name
    }

    /// The layout of a request's entity, checked against its result class.
    func layout<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> EntityLayout {
        let name = request.entityName ?? entityName(ofClass: Result.self)
        guard let name, let layout = model.layout(for: name) else {
            throw PersistenceError(
                .unknownEntity, "the model has no entity \(request.entityName.map { "named '\($0)'" } ?? "of class \(Result.self)")")
        }
        guard layout.entity.managedObjectClass is Result.Type else {
            throw PersistenceError(
                .unknownEntity, "the objects of entity '\(name)' are \(layout.entity.managedObjectClass), not \(Result.self)")
        }
        return layout
    }

    /// The objects that match a request, as rows: sorted, offset and limited when `sorted`.
    func matches<Result: ManagedObject>(for request: FetchRequest<Result>, sorted: Bool) throws -> [ObjectRef] {
        let layout = try layout(for: request)
        try request.predicate?.check(on: layout, model: model)
        let sortKeys = try request.sortDescriptors.map { descriptor in
            let expression = ValueExpression.keyPath(descriptor.key)
            _ = try expression.check(on: layout, model: model, variables: [:])
            return (expression, descriptor)
        }
        let source = ContextObjectSource(graph: self, includesPendingChanges: request.includesPendingChanges)
        let evaluator = PredicateEvaluator(source: source)
        let names = request.includesSubentities ? layout.hierarchyNames : [layout.name]
        var matches: [ObjectRef] = []
        rowsConsidered = 0
        func consider(_ ref: ObjectRef) throws {
            rowsConsidered += 1
            if let predicate = request.predicate, !(try evaluator.evaluate(predicate, on: .object(ref))) { return }
            matches.append(ref)
        }
        let pending = request.includesPendingChanges
        if sorted, let (store, snapshot) = soleSnapshot(for: request, names: names) {
            let sort = request.sortDescriptors.map { (key: $0.key, ascending: $0.ascending) }
            // The store matched, sorted and windowed exactly: nothing of the context's changes is in play.
            if names.count == 1, let rows = try snapshot.storedRows(
                of: layout, matching: request.predicate, sortedBy: sort, offset: request.fetchOffset, limit: request.fetchLimit)
            {
                rowsConsidered = rows.count
                let space = ObjectIDSpace.make(store: store, entityName: layout.name)
                return rows.map { ObjectRef(id: ManagedObjectID(space: space, number: $0.reference), stored: $0.stored, layout: layout) }
            }
            if names.count == 1, let rows = try snapshot.rows(
                of: layout, matching: request.predicate, sortedBy: sort, offset: request.fetchOffset, limit: request.fetchLimit)
            {
                rowsConsidered = rows.count
                let space = ObjectIDSpace.make(store: store, entityName: layout.name)
                return rows.map { ObjectRef(id: ManagedObjectID(space: space, number: $0.reference), row: $0.row, layout: layout) }
            }
            if names.count > 1, let refs = try storeWindow(of: names, request: request, sortedBy: sort, store: store, snapshot: snapshot) {
                rowsConsidered = refs.count
                return refs
            }
        }
        if sorted, let window = try windowOfSortedOrder(for: request, names: names, sortKeys: sortKeys, evaluator: evaluator) {
            return window
        }
        let wanted = Set(names)
        // Stored rows of objects the context changed are considered with their changes, below.
        var changed: [String: Set<Int64>] = [:]
        let generation = self.generation  // pins first: a child's parent rows come with its generation
        // A child reads its parent's unsaved objects instead of their stored rows.
        for id in parentRows.keys where wanted.contains(id.entityName) {
            if let reference = id.referenceNumber { changed[id.entityName, default: []].insert(reference) }
        }
        if pending {
            for object in updated.values.elements + deleted.values.elements where wanted.contains(object.entity.name) {
                if let reference = object.objectID.referenceNumber { changed[object.entity.name, default: []].insert(reference) }
            }
        }
        for (store, tables) in generation.stores where request.searches(store: store) {
            for name in names {
                guard let table = tables[name], let entityLayout = model.layout(for: name) else { continue }
                let skipped = changed[name] ?? []
                let space = ObjectIDSpace.make(store: store, entityName: name)
                let plan = request.usesFastPaths ? IndexPlan(predicate: request.predicate, layout: entityLayout) : nil
                if let plan, let index = generation.index(store: store, entity: name, slot: plan.slot) {
                    // The index narrows the rows to consider. A sorted fetch takes them in reference
                    // order, as a scan does, so that ties on the sort keys come in one order either way.
                    let references = plan.references(in: index)
                    for reference in sorted ? references.sorted() : references where !skipped.contains(reference) {
                        guard let row = table[stored: reference] else { continue }
                        try consider(ObjectRef(id: ManagedObjectID(space: space, number: reference), stored: row, layout: entityLayout))
                    }
                    continue
                }
                if request.usesFastPaths, let predicate = request.predicate, let test = RowTest(predicate, layout: entityLayout) {
                    // A predicate of plain comparisons runs on the rows themselves.
                    rowsConsidered += table.count
                    for (reference, row) in table.rows(matching: test) where !skipped.contains(reference) {
                        matches.append(ObjectRef(id: ManagedObjectID(space: space, number: reference), stored: row, layout: entityLayout))
                    }
                    continue
                }
                for (reference, row) in table.stored where !skipped.contains(reference) {
                    try consider(ObjectRef(id: ManagedObjectID(space: space, number: reference), stored: row, layout: entityLayout))
                }
            }
        }
        // An incremental store's objects are read through the generation's snapshot of it, an
        // entity at a time; the predicate is evaluated here on what the store returns.
        for (store, snapshot) in generation.snapshots where request.searches(store: store) {
            for name in names {
                guard let entityLayout = model.layout(for: name) else { continue }
                let skipped = changed[name] ?? []
                let space = ObjectIDSpace.make(store: store, entityName: name)
                for (reference, row) in try snapshot.rows(of: entityLayout, matching: request.predicate) where !skipped.contains(reference) {
                    try consider(ObjectRef(id: ManagedObjectID(space: space, number: reference), row: row, layout: entityLayout))
                }
            }
        }
        for (id, row) in parentRows where wanted.contains(id.entityName) && searches(request, objectOf: id) {
            guard let row, let layout = model.layout(for: id.entityName) else { continue }
            if pending, let object = registered[id], object.hasChanges { continue }
            try consider(ObjectRef(id: id, row: row, layout: layout))
        }
        if pending {
            for object in inserted.values.elements + updated.values.elements
            where !object.isDeleted && wanted.contains(object.entity.name) && searches(request, objectOf: object.objectID) {
                try consider(ObjectRef(id: object.objectID, row: object.storage, layout: object.layout))
            }
        }
        guard sorted else { return matches }
        if !sortKeys.isEmpty {
            matches = try sortedPositions(of: matches, by: sortKeys, evaluator: evaluator).map { matches[$0] }
        }
        var window = matches.dropFirst(request.fetchOffset)[...]
        if request.fetchLimit > 0 { window = window.prefix(request.fetchLimit) }
        return Array(window)
    }

    /// A sorted, windowed fetch across a hierarchy (Core Data's one table) answered by its one
    /// store: the window's references in order from one query, then their rows by reference, an
    /// entity at a time. A page of 50 of a million books sorted by title reads 50 rows. `nil`
    /// when the store cannot sort or match exactly.
    private func storeWindow<Result: ManagedObject>(
        of names: [String], request: FetchRequest<Result>, sortedBy sort: [(key: String, ascending: Bool)], store: String,
        snapshot: StoreSnapshot
    ) throws -> [ObjectRef]? {
        let layouts = names.compactMap { model.layout(for: $0) }
        guard layouts.count == names.count,
            let references = try snapshot.references(
                of: layouts, matching: request.predicate, sortedBy: sort, offset: request.fetchOffset, limit: request.fetchLimit)
        else { return nil }
        var byEntity: OrderedDictionary<String, [Int64]> = [:]
        for (entity, reference) in references { byEntity[entity, default: []].append(reference) }
        let members = byEntity.compactMap { entity, wanted in layouts.first { $0.name == entity }.map { (layout: $0, references: wanted) } }
        let spaces = members.map { ObjectIDSpace.make(store: store, entityName: $0.layout.name) }
        var rows: [ManagedObjectID: (Row, EntityLayout)] = [:]
        for (member, reference, row) in try snapshot.rows(of: members) {
            rows[ManagedObjectID(space: spaces[member], number: reference)] = (row, members[member].layout)
        }
        // Both reads are of one snapshot, so each reference has its row; one the second read
        // does not give (a store that breaks that) is left out rather than trapping.
        return references.compactMap { entity, reference in
            let id = ManagedObjectID(space: ObjectIDSpace.make(store: store, entityName: entity), number: reference)
            return rows[id].map { ObjectRef(id: id, row: $0.0, layout: $0.1) }
        }
    }

    /// Whether `request` searches the store of `id`, or, for a new object that has none yet, the
    /// store a save puts new objects in.
    func searches<Result>(_ request: FetchRequest<Result>, objectOf id: ManagedObjectID) -> Bool {
        guard request.affectedStores != nil else { return true }
        guard let store = id.space.store ?? coordinator.persistentStores.first(where: { !$0.isReadOnly })?.identifier else { return false }
        return request.searches(store: store)
    }

    /// The one incremental store (of those the request searches) that alone holds a request's
    /// answer for the entities `names` (its entity, then the subentities it includes): no atomic
    /// store has a table of them, and neither the context's unsaved changes (when the request
    /// includes them) nor a parent's can change the answer. The store may then sort, window,
    /// group and count in its own query.
    ///
    /// A sort key, or one of `keyPaths` (group keys), through a relationship reads other
    /// entities' values too: then no unsaved change of any entity may be in play.
    func soleSnapshot<Result: ManagedObject>(
        for request: FetchRequest<Result>, names: [String], keyPaths: [String] = []
    ) -> (String, StoreSnapshot)? {
        let readsOthers = (request.sortDescriptors.map(\.key) + keyPaths).contains { $0.contains(".") }
        func concerns(_ entityName: String) -> Bool { readsOthers || names.contains(entityName) }
        let snapshots = generation.snapshots.filter { request.searches(store: $0.key) }
        guard request.usesFastPaths, !names.isEmpty, snapshots.count == 1, let (store, snapshot) = snapshots.first,
            generation.stores.allSatisfy({ tables in !request.searches(store: tables.key) || names.allSatisfy { tables.value[$0] == nil } }),
            request.sortDescriptors.allSatisfy(\.sortsAsStores),
            !parentRows.keys.contains(where: { concerns($0.entityName) })
        else { return nil }
        if request.includesPendingChanges {
            for objects in [inserted, updated, deleted] where objects.values.contains(where: { concerns($0.entity.name) }) { return nil }
        }
        return (store, snapshot)
    }

    /// A request's count from its store's own query, when the store alone holds the answer
    /// and can count it exactly.
    func storeCount<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int? {
        let layout = try layout(for: request)
        try request.predicate?.check(on: layout, model: model)
        let names = request.includesSubentities ? layout.hierarchyNames : [layout.name]
        let layouts = names.compactMap { model.layout(for: $0) }
        guard layouts.count == names.count, let (_, snapshot) = soleSnapshot(for: request, names: names),
            let total = try snapshot.count(of: layouts, matching: request.predicate)
        else { return nil }
        let remaining = max(0, total - request.fetchOffset)
        return request.fetchLimit > 0 ? min(remaining, request.fetchLimit) : remaining
    }
}
