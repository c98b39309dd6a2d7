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

    /// The objects `owner`'s relationship at `index` names, as ``object(for:)`` gives each.
    /// Those of an incremental store that are faults holding no row join a ``FaultBatch`` per
    /// 200: the first of them to fire reads the rows of its batch together (a query per entity on
    /// SQLite, per hierarchy on PostgreSQL), and the others fire from them. Core Data fires each object of a
    /// to-many relationship on its own — a query per object, the N+1 its
    /// `relationshipKeyPathsForPrefetching` avoids —; walking an author's 20 books here reads one.
    ///
    /// A batch of fewer than 200 reads, with its own, the rows of the objects the same
    /// relationship of the owner's neighbours names (``relationshipNeighbours(of:at:room:excluding:)``),
    /// so that walking every author's books reads 200 books a query, not one author's; those
    /// rows stay in the generation, where their objects find them when they fire, and no object
    /// is made for them. No value differs: the rows are those of the generation the context
    /// reads, as a batch of a fetch with a `fetchBatchSize` holds them. Objects of an atomic
    /// store fire from its tables as before.
    func relatedObjects(of owner: ManagedObject, at index: Int) -> [ManagedObject] {
        let ids = owner.storage.relationships[index].objectIDs
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        var waiting: [ManagedObjectID] = []
        for id in ids {
            let object = object(for: id)
            objects.append(object)
            if waitsForItsRow(object) { waiting.append(id) }
        }
        guard !waiting.isEmpty else { return objects }
        // A neighbour's batch may have read them already: they take those rows now, as a batch's
        // objects take theirs, and fire from them (Core Data's row cache). Left in the generation,
        // each fault fired later took the latest generation for itself, which asks the store
        // whether another connection committed: 12% of walking 5,000 authors' books on SQLite.
        let read = generation.rowsRead(waiting)
        if !read.isEmpty {
            let now = DispatchTime.now().uptimeNanoseconds
            for object in objects { if let row = read[object.objectID] { object.cache(.row(row), at: now) } }
            waiting = waiting.filter { read[$0] == nil }
        }
        guard !waiting.isEmpty else { return objects }
        let alongside = waiting.count < ReferenceChunks.size
            ? relationshipNeighbours(of: owner, at: index, room: ReferenceChunks.size - waiting.count, excluding: Set(waiting)) : []
        var start = 0
        while start < waiting.count {
            let batch = FaultBatch(
                ids: Array(waiting[start..<min(start + ReferenceChunks.size, waiting.count)]), prefetching: [],
                alongside: start == 0 ? alongside : [])
            for id in batch.ids { registered[id]?.faultBatch = batch }
            start += ReferenceChunks.size
        }
        return objects
    }

    /// Whether `object` is a fault of an incremental store holding no row and in no batch, that
    /// a batch would read: not one a child's parent changed (it reads the parent's values).
    private func waitsForItsRow(_ object: ManagedObject) -> Bool {
        guard object.isFault, object.cachedAt == 0, object.faultBatch == nil, case .permanent(let store, _) = object.objectID.key,
            parentRows[object.objectID] == nil
        else { return false }
        return isIncremental(store)
    }

    /// Whether the store of that identifier is an incremental store (remembered per store).
    private func isIncremental(_ store: String) -> Bool {
        if let known = incrementalStores[store] { return known != nil }
        let found = coordinator.persistentStores.first { $0.identifier == store } as? IncrementalStore
        incrementalStores[store] = found
        return found != nil
    }

    /// How far ``relationshipNeighbours(of:at:room:excluding:)`` looks past an owner: at most
    /// this many reference numbers, and no further than ``neighbourGap`` in a row that name no
    /// object the context has registered.
    static let neighbourSpan: Int64 = 256
    static let neighbourGap = 16

    /// Up to `room` objects that the same relationship of `owner`'s neighbours names — the
    /// registered objects of its entity whose reference numbers follow its own, as a walk over
    /// fetched objects reaches them next — and that a batch would read (faults of an incremental
    /// store holding no row; none of `excluding`). A neighbour that is a fault holding no row,
    /// or whose relationship is still unread, is passed over: looking reads nothing.
    func relationshipNeighbours(
        of owner: ManagedObject, at index: Int, room: Int, excluding excluded: Set<ManagedObjectID>
    ) -> [ManagedObjectID] {
        guard case .permanent(_, let reference) = owner.objectID.key else { return [] }
        var found: [ManagedObjectID] = []
        var seen = excluded
        var misses = 0
        var step: Int64 = 1
        while found.count < room, misses < Self.neighbourGap, step <= Self.neighbourSpan {
            defer { step += 1 }
            guard let neighbour = registered[ManagedObjectID(space: owner.objectID.space, number: reference + step)] else {
                misses += 1
                continue
            }
            misses = 0
            guard neighbour.layout === owner.layout, !neighbour.isFault || neighbour.cachedAt != 0 else { continue }
            var targets = neighbour.storage.relationships[index]
            if case .unread(let fault) = targets {
                guard let read = fault.targetsIfRead else { continue }
                targets = read
            }
            for id in targets.objectIDs where found.count < room && seen.insert(id).inserted {
                if let object = registered[id] {
                    if waitsForItsRow(object) { found.append(id) }
                } else if case .permanent(let store, _) = id.key, parentRows[id] == nil, isIncremental(store) {
                    found.append(id)
                }
            }
        }
        return generation.notReadYet(found)
    }

    /// Reads the rows of the batch's objects that are still faults holding none, together, and
    /// leaves each in its object (Core Data's batch faulting); then follows the batch's
    /// prefetching key paths from them. The rows of the batch's ``FaultBatch/alongside`` objects
    /// come in the same queries and stay in the generation. An object the store no longer has is left without a
    /// row, and fires as one another context deleted; so does one a child context's parent
    /// changed, which fires with the parent's values.
    func readBatch(_ batch: FaultBatch) {
        let waiting = batch.ids.compactMap { id in
            registered[id].flatMap { $0.faultBatch === batch && $0.isFault && $0.cachedAt == 0 ? $0 : nil }
        }
        for object in waiting { object.faultBatch = nil }
        let generation = self.generation  // pins first: a child's parent rows come with its generation
        // A child's objects its parent changed are read with the parent's changes, when they fire.
        let rows = generation.rowsReadTogether(waiting.map(\.objectID).filter { parentRows[$0] == nil }, keeping: batch.alongside)
        let now = DispatchTime.now().uptimeNanoseconds
        for object in waiting {
            if let row = rows[object.objectID] { object.cache(.row(row), at: now) }
        }
        if !batch.prefetching.isEmpty { prefetch(batch.prefetching, from: waiting, at: now) }
    }
}
