import Foundation
import HashTreeCollections
import Synchronization

extension PersistentStoreCoordinator {
    /// Gives permanent IDs to new objects: each gets a reference number from the first store
    /// that can take it. Reference numbers are never handed out twice, even if the save that
    /// asked for them then fails. Runs on the coordinator's queue, as the atomic store contract
    /// promises `newReferenceObject(for:)`.
    ///
    /// - Throws: ``PersistenceError`` with code `.noPersistentStore` when no store can take them.
    nonisolated func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        guard !ids.isEmpty else { return [:] }
        return try executor.runSynchronously {
            try self.assumeIsolated { try $0.makePermanentIDs(for: ids) }
        }
    }

    private func makePermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        guard let store = persistentStores.first(where: { !$0.isReadOnly }) else {
            throw PersistenceError(
                .noPersistentStore, objectIDs: ids, "the coordinator has no writable store to save new objects into")
        }
        let byEntity = Dictionary(grouping: ids, by: \.entityName)
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for (entityName, group) in byEntity {
            guard let layout = managedObjectModel.layout(for: entityName) else { continue }
            let numbers = store.makeReferenceNumbers(for: layout.entity, rootEntity: layout.rootEntityName, count: group.count)
            for (id, reference) in zip(group, numbers) {
                mapping[id] = ManagedObjectID(
                    entityName: id.entityName, key: .permanent(store: store.identifier, reference: reference))
            }
        }
        return mapping
    }

    /// Commits a context's changes, entering the coordinator's queue synchronously.
    nonisolated func commitSynchronously(_ changes: ChangeSet) throws -> Generation {
        try executor.runSynchronously {
            try self.assumeIsolated { try $0.commit(changes) }
        }
    }

    /// Checks the versions the context read against the current generation, lets each store
    /// concerned make the change durable, then publishes the next generation. Nothing changes
    /// when it throws.
    ///
    /// A save that spans several stores is atomic per store, not across them, as with Core
    /// Data's atomic stores.
    private func commit(_ changes: ChangeSet) throws -> Generation {
        let base = currentGeneration
        try checkVersions(of: changes, against: base)

        var stores = base.stores
        var indexes = base.indexes
        var perStore: [String: ChangeSet] = [:]
        for (id, row) in changes.inserted {
            guard base.row(for: id) == nil else {
                throw PersistenceError(
                    .conflict, objectIDs: [id], "the store handed out the reference of \(id) twice; nothing was saved")
            }
            let store = try place(row, version: 1, for: id, in: &stores)
            updateIndexes(&indexes, for: id, old: nil, new: row)
            perStore[store, default: ChangeSet()].inserted[id] = row
        }
        for (id, row) in changes.updated {
            let store = try place(row, version: row.version + 1, for: id, in: &stores)
            updateIndexes(&indexes, for: id, old: base.row(for: id), new: row)
            perStore[store, default: ChangeSet()].updated[id] = row
        }
        for (id, version) in changes.deleted {
            guard case .permanent(let store, let reference) = id.key else { continue }
            updateIndexes(&indexes, for: id, old: base.row(for: id), new: nil)
            stores[store]?[id.entityName]?[reference] = nil
            perStore[store, default: ChangeSet()].deleted[id] = version
        }
        try checkTargets(of: changes, in: stores)
        try checkUniqueness(of: changes, in: base.next(stores: stores, indexes: indexes))
        for (identifier, storeChanges) in perStore {
            guard let store = persistentStores.first(where: { $0.identifier == identifier }) else { continue }
            try store.commit(
                storeChanges, tables: stores[identifier] ?? [:], previous: base.stores[identifier] ?? [:],
                model: managedObjectModel)
        }
        let next = published.withLock { state in
            state.generation = state.generation.next(stores: stores, indexes: indexes)
            return state.generation
        }
        if let origin = changes.origin {
            // Sent here, on the coordinator's queue, so that subscribers see saves in commit order.
            saves.send(
                ContextDidSave(
                    insertedObjectIDs: Set(changes.inserted.keys), updatedObjectIDs: Set(changes.updated.keys),
                    deletedObjectIDs: Set(changes.deleted.keys), queryGeneration: QueryGenerationToken(number: next.number),
                    transactionAuthor: origin.transactionAuthor, contextName: origin.contextName, context: origin.context))
        }
        return next
    }

    /// Every object a saved row points at must be in the new generation: a save must not point
    /// at an object another save deleted meanwhile. (Such a save is a conflict: the context
    /// refreshes and tries again.)
    private func checkTargets(of changes: ChangeSet, in stores: [String: [String: Generation.Table]]) throws {
        var dangling: [ManagedObjectID] = []
        let base = currentGeneration
        for (id, row) in changes.inserted.merging(changes.updated, uniquingKeysWith: { a, _ in a }) {
            let before = base.row(for: id)
            for (index, targets) in row.relationships.enumerated() {
                // Only pointers the save adds: an old dangling one (a no-action delete rule's) stays allowed.
                let old = before.map { Set($0.relationships[index].objectIDs) } ?? []
                for target in targets.objectIDs where !old.contains(target) {
                    guard case .permanent(let store, let reference) = target.key, stores[store]?[target.entityName]?[reference] != nil else {
                        dangling.append(id)
                        break
                    }
                }
            }
        }
        // A deleted object must not stay in the inverse relationships of the objects it pointed at
        // (as the store last had it: a save that linked to it after the deleter read it).
        for id in changes.deleted.keys {
            guard let layout = managedObjectModel.layout(for: id.entityName), let row = currentGeneration.row(for: id) else { continue }
            for (index, targets) in row.relationships.enumerated() where layout.relationships[index].deleteRule != .noAction {
                guard let inverse = layout.inverseSlots[index] else { continue }
                for target in targets.objectIDs {
                    guard case .permanent(let store, let reference) = target.key,
                        let targetRow = stores[store]?[target.entityName]?[reference],
                        targetRow.relationships[inverse].objectIDs.contains(id)
                    else { continue }
                    dangling.append(id)
                }
            }
        }
        guard dangling.isEmpty else {
            throw PersistenceError(
                .conflict, objectIDs: dangling,
                "\(dangling.count) object(s) point at objects another save deleted; nothing was saved: refresh them and save again")
        }
    }

    /// No two objects may share the values of a uniqueness constraint: a save that would make
    /// them (another save inserted the same values meanwhile) is refused, and the context's
    /// merge policy decides what to do.
    private func checkUniqueness(of changes: ChangeSet, in generation: Generation) throws {
        var conflicts: [ConstraintConflict] = []
        for (id, row) in changes.inserted.merging(changes.updated, uniquingKeysWith: { a, _ in a }) {
            guard case .permanent(let store, _) = id.key, let layout = managedObjectModel.layout(for: id.entityName) else { continue }
            for constraint in layout.uniquenessConstraints {
                let values = constraint.slots.map { row.attributes[$0] }
                if let other = generation.object(
                    matching: values, slots: constraint.slots, constraint: constraint.names, excluding: id, store: store,
                    model: managedObjectModel, entity: id.entityName)
                {
                    conflicts.append(ConstraintConflict(constraint: constraint.names, conflictingObjectIDs: [id], storeObjectID: other))
                }
            }
        }
        guard conflicts.isEmpty else {
            throw PersistenceError(
                .constraintConflict, objectIDs: conflicts.flatMap(\.conflictingObjectIDs),
                "\(conflicts.count) uniqueness constraint(s) broken: " + conflicts.map(\.description).joined(separator: "; "),
                constraintConflicts: conflicts)
        }
    }

    /// Moves an object's entries in its entity's indexes from its old values to its new ones.
    private func updateIndexes(
        _ indexes: inout [String: [String: [Int: AttributeIndex]]], for id: ManagedObjectID, old: Row?, new: Row?
    ) {
        guard case .permanent(let store, let reference) = id.key, let layout = managedObjectModel.layout(for: id.entityName),
            !layout.indexedAttributes.isEmpty
        else { return }
        for slot in layout.indexedAttributes {
            let before = old?.attributes[slot]
            let after = new?.attributes[slot]
            if old != nil, new != nil, before == after { continue }
            var index = indexes[store]?[id.entityName]?[slot] ?? AttributeIndex()
            indexes[store]?[id.entityName]?[slot] = nil
            if old != nil { index.remove(before, reference) }
            if new != nil { index.insert(after, reference) }
            indexes[store, default: [:]][id.entityName, default: [:]][slot] = index
        }
    }

    private func checkVersions(of changes: ChangeSet, against generation: Generation) throws {
        var conflicts: [ManagedObjectID] = []
        for (id, row) in changes.updated where generation.row(for: id)?.version != row.version {
            conflicts.append(id)
        }
        for (id, version) in changes.deleted where generation.row(for: id)?.version != version {
            conflicts.append(id)
        }
        guard conflicts.isEmpty else {
            conflicts.sort { $0.description < $1.description }
            throw PersistenceError(
                .conflict, objectIDs: conflicts,
                "\(conflicts.count) object(s) changed in the store since this context read them: "
                    + conflicts.map(\.description).joined(separator: ", ")
                    + ". Nothing was saved; refresh the objects (mergeChanges: true keeps your changes) and save again")
        }
    }

    /// Puts `row` into the tables at `version`; returns the identifier of the store it went to.
    private func place(
        _ row: Row, version: Int64, for id: ManagedObjectID, in stores: inout [String: [String: Generation.Table]]
    ) throws -> String {
        guard case .permanent(let storeID, let reference) = id.key,
            let store = persistentStores.first(where: { $0.identifier == storeID })
        else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "the store of \(id) is not part of this coordinator")
        }
        guard !store.isReadOnly else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "the store \(storeID) is read-only")
        }
        var row = row
        row.version = version
        stores[storeID, default: [:]][id.entityName, default: [:]][reference] = row
        return storeID
    }
}
