import Dispatch

extension ObjectGraph {
    /// For a fetch with a batch size or of IDs: the IDs of the matches, in order, read by the
    /// store without their rows — when the store alone holds the answer and can match, sort
    /// and window it exactly (the SQL stores; a batched fetch reads the rows a batch at a time
    /// as objects fire). `nil` otherwise, and the fetch reads rows as any fetch does.
    func matchIDsWithoutRows<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> (ids: [ManagedObjectID], layout: EntityLayout)? {
        let layout = try layout(for: request)
        try request.predicate?.check(on: layout, model: model)
        for descriptor in request.sortDescriptors {
            _ = try ValueExpression.keyPath(descriptor.key).check(on: layout, model: model, variables: [:])
        }
        let names = request.includesSubentities ? layout.hierarchyNames : [layout.name]
        let layouts = names.compactMap { model.layout(for: $0) }
        guard layouts.count == names.count, let (store, snapshot) = soleSnapshot(for: request, names: names),
            let references = try snapshot.references(
                of: layouts, matching: request.predicate, sortedBy: request.sortDescriptors.map { (key: $0.key, ascending: $0.ascending) },
                offset: request.fetchOffset, limit: request.fetchLimit)
        else { return nil }
        rowsConsidered = references.count
        let spaces = Dictionary(uniqueKeysWithValues: names.map { ($0, ObjectIDSpace.make(store: store, entityName: $0)) })
        return (references.compactMap { entity, reference in spaces[entity].map { ManagedObjectID(space: $0, number: reference) } }, layout)
    }

    /// The objects of `ids`, registered as faults holding no row, `batchSize` to a
    /// ``FaultBatch``; objects the context has registered already come back as they are (a
    /// fault of them holding no row joins its batch). Those newly registered are added to `taken`.
    func registerInBatches(
        _ ids: [ManagedObjectID], layout: EntityLayout, batchSize: Int, prefetching: [String], taken: inout [ManagedObjectID]
    ) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let batchIDs = Array(ids[start..<min(start + batchSize, ids.count)])
            let batch = FaultBatch(ids: batchIDs, prefetching: prefetching)
            for id in batchIDs {
                if let object = registered[id] {
                    if object.isFault, object.cachedAt == 0 { object.faultBatch = batch }
                    objects.append(object)
                } else {
                    // A subentity's object (a fetch across a hierarchy) is made with its own layout.
                    let own = id.entityName == layout.name ? layout : model.layout(for: id.entityName) ?? layout
                    let object = register(id: id, stored: nil, layout: own, announcing: false)
                    object.faultBatch = batch
                    taken.append(id)
                    objects.append(object)
                }
            }
            start += batchSize
        }
        return objects
    }

    /// The objects a relationship names, as ``object(for:)`` gives each. Those of an incremental
    /// store that are faults holding no row join a ``FaultBatch`` per 200: the first of them to
    /// fire reads the rows of its batch together (one query per entity on the SQL stores), and
    /// the others fire from them. Core Data fires each object of a to-many relationship on its
    /// own — a query per object, the N+1 its `relationshipKeyPathsForPrefetching` avoids —;
    /// walking an author's 20 books here reads one. No value differs: the rows are those of the
    /// generation the context reads, as a batch of a fetch with a `fetchBatchSize` holds them.
    /// Objects of an atomic store fire from its tables as before.
    func relatedObjects(_ ids: some Collection<ManagedObjectID>) -> [ManagedObject] {
        guard ids.count > 1 else { return ids.map { object(for: $0) } }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        var waiting: [ManagedObjectID] = []
        var incremental: [String: Bool] = [:]
        for id in ids {
            let object = object(for: id)
            objects.append(object)
            guard object.isFault, object.cachedAt == 0, object.faultBatch == nil, parentRows[id] == nil,
                case .permanent(let store, _) = id.key
            else { continue }
            let isIncremental = incremental[store] ?? {
                let answer = coordinator.persistentStores.first { $0.identifier == store } is IncrementalStore
                incremental[store] = answer
                return answer
            }()
            if isIncremental { waiting.append(id) }
        }
        var start = 0
        while start < waiting.count {
            let batch = FaultBatch(ids: Array(waiting[start..<min(start + ReferenceChunks.size, waiting.count)]), prefetching: [])
            for id in batch.ids { registered[id]?.faultBatch = batch }
            start += ReferenceChunks.size
        }
        return objects
    }

    /// Reads the rows of the batch's objects that are still faults holding none, together, and
    /// leaves each in its object (Core Data's batch faulting); then follows the batch's
    /// prefetching key paths from them. An object the store no longer has is left without a
    /// row, and fires as one another context deleted; so does one a child context's parent
    /// changed, which fires with the parent's values.
    func readBatch(_ batch: FaultBatch) {
        let waiting = batch.ids.compactMap { id in
            registered[id].flatMap { $0.faultBatch === batch && $0.isFault && $0.cachedAt == 0 ? $0 : nil }
        }
        for object in waiting { object.faultBatch = nil }
        let generation = self.generation  // pins first: a child's parent rows come with its generation
        // A child's objects its parent changed are read with the parent's changes, when they fire.
        let rows = generation.rowsReadTogether(waiting.map(\.objectID).filter { parentRows[$0] == nil })
        let now = DispatchTime.now().uptimeNanoseconds
        for object in waiting {
            if let row = rows[object.objectID] { object.cache(.row(row), at: now) }
        }
        if !batch.prefetching.isEmpty { prefetch(batch.prefetching, from: waiting, at: now) }
    }
}
