import Foundation
import HashTreeCollections
import OrderedCollections

extension ManagedObjectContext {
    /// The objects a request describes, read from the context's pinned generation (and, unless
    /// the request says otherwise, its unsaved changes).
    ///
    /// - Throws: ``PersistenceError`` with code `.unknownEntity` when the model has no such
    ///   entity or its class is not `Result`; ``ValidationError`` with code `.unknownKey` for a
    ///   sort key the entity does not have.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        let layout = try graph.layout(for: request)
        let sortSlots = try request.sortDescriptors.map { descriptor in
            guard case .attribute(let index)? = layout.slots[descriptor.key] else {
                throw ValidationError(
                    .unknownKey, entity: layout.name, key: descriptor.key, "sort keys name attributes of the entity")
            }
            return (index, descriptor.ascending)
        }
        var objects = graph.objects(of: request.includesSubentities ? layout.hierarchyNames : [layout.name],
                                    includingPendingChanges: request.includesPendingChanges)
        if !sortSlots.isEmpty {
            objects.sort { a, b in
                for (index, ascending) in sortSlots {
                    let order = Self.order(a.attributeValue(at: index), b.attributeValue(at: index))
                    if order != .orderedSame { return (order == .orderedAscending) == ascending }
                }
                return false
            }
        }
        var results = objects.dropFirst(request.fetchOffset)[...]
        if request.fetchLimit > 0 { results = results.prefix(request.fetchLimit) }
        return results.compactMap { $0 as? Result }
    }

    /// How many objects a request would fetch.
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
        try fetch(request).count
    }

    private static func order(_ a: AttributeValue?, _ b: AttributeValue?) -> ComparisonResult {
        switch (a, b) {
        case (nil, nil): .orderedSame
        case (nil, _): .orderedAscending
        case (_, nil): .orderedDescending
        case (let a?, let b?): a.compare(to: b) ?? .orderedSame
        }
    }
}

extension ObjectGraph {
    /// The layout of a request's entity, checked against its result class.
    func layout<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> EntityLayout {
        let name = request.entityName ?? model.entities.first { $0.managedObjectClass == Result.self }?.name
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

    /// Every object of the named entities in the pinned generation, as registered objects,
    /// with the context's own inserts added and its deletes removed when asked.
    func objects(of entityNames: [String], includingPendingChanges: Bool) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        for (store, tables) in generation.stores {
            for name in entityNames {
                guard let table = tables[name] else { continue }
                objects.reserveCapacity(objects.count + table.count)
                for (reference, row) in table {
                    let id = ManagedObjectID(entityName: name, key: .permanent(store: store, reference: reference))
                    if let existing = registered[id] {
                        if includingPendingChanges, existing.isDeleted { continue }
                        if existing.isFault { fulfillFault(existing) }
                        objects.append(existing)
                    } else {
                        objects.append(register(id: id, row: row))
                    }
                }
            }
        }
        if includingPendingChanges {
            let names = Set(entityNames)
            objects += inserted.values.filter { !$0.isDeleted && names.contains($0.entity.name) }
        }
        return objects
    }
}
