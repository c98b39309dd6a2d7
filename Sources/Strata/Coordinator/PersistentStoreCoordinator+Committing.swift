import Foundation
import HashTreeCollections
import Logging

extension PersistentStoreCoordinator {
    /// Gives permanent IDs to new objects, in the order of `ids` (an ID whose entity the model
    /// lacks is given back as it is): each gets a reference number from the first store that
    /// can take it. Reference numbers are never handed out twice, even if the save that
    /// asked for them then fails. Runs on the coordinator's queue, as the atomic store contract
    /// promises `newReferenceObject(for:)`.
    ///
    /// - Throws: ``PersistenceError`` with code `.noPersistentStore` when no store can take them.
    nonisolated func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        guard !ids.isEmpty else { return [] }
        return try executor.runSynchronously {
            try self.assumeIsolated { try $0.makePermanentIDs(for: ids) }
        }
    }

    /// The permanent IDs for `ids`, in their order.
    private func makePermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        guard let store = persistentStores.first(where: { !$0.isReadOnly }) else {
            let reasons = persistentStores.compactMap { store in store.readOnlyReason.map { "\(store): \($0)" } }
            throw PersistenceError(
                .noPersistentStore, objectIDs: ids,
                "the coordinator has no writable store to save new objects into" + reasons.map { " (\($0))" }.joined())
        }
        // Grouped by space (one per entity and store, interned), not by hashing each entity name.
        let bySpace = Dictionary(grouping: ids.indices, by: { ObjectIdentifier(ids[$0].space) })
        var permanent = ids
        for positions in bySpace.values {
            let entityName = ids[positions[0]].entityName
            guard let layout = managedObjectModel.layout(for: entityName) else { continue }
            let numbers = try store.makeReferenceNumbers(for: layout.entity, rootEntity: layout.rootEntityName, count: positions.count)
            let space = ObjectIDSpace.make(store: store.identifier, entityName: entityName)
            for (position, reference) in zip(positions, numbers) {
                permanent[position] = ManagedObjectID(space: space, number: reference)
            }
        }
        return permanent
    }

    /// What a commit left: the generation it published, the notification it sent (when the
    /// changes have an origin), and the version each saved object now has.
    struct CommitResult {
        let generation: Generation
        let didSave: ContextDidSave?
        let versions: [ManagedObjectID: Int64]
    }

    /// A save with nothing to save, as Core Data still sends it: one empty save request to each
    /// incremental store of the user's own (stores use it, for example, to flush); a store that
    /// saves rows does what its ``RowSavingStore/saveWithoutChanges()`` says.
    nonisolated func sendEmptySave() throws {
        try executor.runSynchronously {
            try self.assumeIsolated { coordinator in
                for store in coordinator.persistentStores.compactMap({ $0 as? IncrementalStore }) {
                    if let store = store as? any RowSavingStore {
                        try store.saveWithoutChanges()
                    } else {
                        _ = try store.commit(ChangeSet())
                    }
                }
            }
        }
    }

    /// Commits a context's changes, entering the coordinator's queue synchronously.
    nonisolated func commitSynchronously(_ changes: ChangeSet) throws -> CommitResult {
        try executor.runSynchronously {
            try self.assumeIsolated { try $0.commit(changes) }
        }
    }

    /// Lets each store concerned make the change durable, then publishes the next generation.
    /// Atomic stores' changes are checked against the current generation first (versions,
    /// targets, uniqueness) and applied to its tables; an incremental store checks its own in
    /// the transaction that writes them. Nothing changes when it throws.
    ///
    /// A save that spans several stores is atomic per store, not across them, as with Core
    /// Data's stores.
    private func commit(_ changes: ChangeSet) throws -> CommitResult {
        let (atomicChanges, incrementalChanges) = try partition(changes)
        let prepared = atomicChanges.isEmpty ? nil : try prepare(atomicChanges)
        var versions = prepared?.versions ?? [:]
        var snapshots: [String: StoreSnapshot] = [:]
        // Another process's commits that this save's new snapshot takes in: announced after it,
        // as they would have been had the watcher seen them first.
        var changedOutside: [IncrementalStore] = []
        for (store, storeChanges) in incrementalChanges {
            if store.postsRemoteChanges, store.hasOutsideChanges { changedOutside.append(store) }
            let storeVersions = try store.commit(storeChanges)
            // One store's versions are all there are (the usual save): taken as they are, not
            // copied entry by entry into a table grown as it fills.
            if versions.isEmpty { versions = storeVersions } else { versions.merge(storeVersions) { $1 } }
            do {
                snapshots[store.identifier] = try StoreSnapshot(store: store)
            } catch {
                // The save is in the store: the generation keeps the old snapshot, and the next
                // context to pin one notices the store changed and starts a new generation.
                logger.error("a save committed, but its store cannot be read from: \(error)", metadata: ["store": "\(store.identifier)"])
            }
        }
        var atomicFailure: (any Error)?
        if let prepared {
            do {
                for (identifier, storeChanges) in prepared.perStore {
                    guard let store = persistentStores.first(where: { $0.identifier == identifier }) else { continue }
                    let previous = prepared.base.stores[identifier] ?? [:]
                    // Recorded before the store writes, so that a file store writes it with the
                    // objects; taken back if the write fails.
                    let log = store.tracksPersistentHistory ? store.historyLog.current : nil
                    if let log {
                        store.historyLog.append(
                            HistoryRecorder.transaction(
                                for: storeChanges, previous: previous, model: managedObjectModel, store: identifier, log: log))
                    }
                    do {
                        try store.commit(storeChanges, tables: prepared.stores[identifier] ?? [:], previous: previous, model: managedObjectModel)
                    } catch {
                        if let log { store.historyLog.current = log }
                        throw error
                    }
                }
            } catch {
                atomicFailure = error
            }
        }
        let next = published.withLock { state in
            // What incremental stores committed is in them whatever became of the atomic part:
            // the generation shows it either way.
            var next = state.generation.next(replacing: snapshots)
            if let prepared, atomicFailure == nil {
                next.stores = prepared.stores
                next.indexes = prepared.indexes
            }
            state.generation = next
            return next
        }
        for store in changedOutside { announceRemoteChange(of: store) }
        if let atomicFailure { throw atomicFailure }
        guard let origin = changes.origin else { return CommitResult(generation: next, didSave: nil, versions: versions) }
        let didSave = ContextDidSave(
            insertedObjectIDs: Set(changes.inserted.keys), updatedObjectIDs: Set(changes.updated.keys),
            deletedObjectIDs: Set(changes.deleted.keys), queryGeneration: QueryGenerationToken(number: next.number),
            transactionAuthor: origin.transactionAuthor, contextName: origin.contextName, context: origin.context)
        // Sent here, on the coordinator's queue, so that subscribers see saves in commit order.
        saves.send(didSave)
        return CommitResult(generation: next, didSave: didSave, versions: versions)
    }

    /// The changes for atomic stores, and those for each incremental store.
    private func partition(_ changes: ChangeSet) throws -> (atomic: ChangeSet, incremental: [(IncrementalStore, ChangeSet)]) {
        let incrementalStores = persistentStores.compactMap { $0 as? IncrementalStore }
        guard !incrementalStores.isEmpty else { return (changes, []) }
        var atomic = ChangeSet()
        var incremental: [String: ChangeSet] = [:]
        let byIdentifier = Dictionary(incrementalStores.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        // An ID space is one store's and one entity's: its answer is looked up once.
        var bySpace: [ObjectIdentifier: String?] = [:]
        func isIncremental(_ id: ManagedObjectID) -> String? {
            if let known = bySpace[ObjectIdentifier(id.space)] { return known }
            let store = id.persistentStoreIdentifier.flatMap { byIdentifier[$0] != nil ? $0 : nil }
            bySpace[ObjectIdentifier(id.space)] = store
            return store
        }
        // Most saves touch one store: then its part is the whole change set, not a copy made object by object.
        var stores: Set<String?> = []
        for id in changes.inserted.keys where stores.count < 2 { stores.insert(isIncremental(id)) }
        for id in changes.updated.keys where stores.count < 2 { stores.insert(isIncremental(id)) }
        for id in changes.deleted.keys where stores.count < 2 { stores.insert(isIncremental(id)) }
        if stores.count == 1, let only = stores.first, let store = only {
            incremental[store] = changes
        } else {
            for (id, row) in changes.inserted {
                if let store = isIncremental(id) { incremental[store, default: ChangeSet()].inserted[id] = row } else { atomic.inserted[id] = row }
            }
            for (id, row) in changes.updated {
                guard let store = isIncremental(id) else {
                    atomic.updated[id] = row
                    continue
                }
                incremental[store, default: ChangeSet()].updated[id] = row
                incremental[store]?.committed[id] = changes.committed[id]
            }
            for (id, version) in changes.deleted {
                if let store = isIncremental(id) { incremental[store, default: ChangeSet()].deleted[id] = version } else { atomic.deleted[id] = version }
            }
            // Each part keeps who saved it, which persistent history records.
            atomic.origin = changes.origin
            (atomic.author, atomic.contextName) = (changes.author, changes.contextName)
            for store in incremental.keys {
                incremental[store]?.origin = changes.origin
                incremental[store]?.author = changes.author
                incremental[store]?.contextName = changes.contextName
            }
        }
        for (identifier, storeChanges) in incremental where byIdentifier[identifier]?.isReadOnly == true {
            let ids = Array(storeChanges.inserted.keys) + Array(storeChanges.updated.keys) + Array(storeChanges.deleted.keys)
            let reason = byIdentifier[identifier]?.readOnlyReason.map { ": \($0)" } ?? ""
            throw PersistenceError(.readOnlyStore, objectIDs: ids, "the store \(identifier) is read-only\(reason)")
        }
        return (atomic, incremental.compactMap { identifier, changes in byIdentifier[identifier].map { ($0, changes) } })
    }

    /// An atomic commit checked and applied to the tables, not yet written nor published.
    private struct PreparedCommit {
        let base: Generation
        let stores: [String: [String: Generation.Table]]
        let indexes: [String: [String: [Int: AttributeIndex]]]
        let perStore: [String: ChangeSet]
        let versions: [ManagedObjectID: Int64]
    }

    /// Checks the versions the context read against the current generation and applies the
    /// changes to its tables.
    private func prepare(_ changes: ChangeSet) throws -> PreparedCommit {
        let base = currentGeneration
        try checkVersions(of: changes, against: base)

        var edits = TableEdits()
        for (id, row) in changes.inserted {
            try edits.add(.init(objectID: id, reference: reference(of: id), row: row, isInsert: true), store: writableStore(of: id))
        }
        for (id, row) in changes.updated {
            try edits.add(.init(objectID: id, reference: reference(of: id), row: row, isInsert: false), store: writableStore(of: id))
        }
        for id in changes.deleted.keys {
            guard case .permanent(let store, let reference) = id.key else { continue }
            edits.add(.init(objectID: id, reference: reference, row: nil, isInsert: false), store: store)
        }
        var stores = base.stores
        var indexes = base.indexes
        var versions: [ManagedObjectID: Int64] = [:]
        versions.reserveCapacity(changes.inserted.count + changes.updated.count)
        for (table, group) in edits.groups {
            try apply(group, to: table, stores: &stores, indexes: &indexes, versions: &versions)
        }
        // With one store (the usual case) it takes the whole change set as it is, rather than a
        // copy of it made object by object.
        var perStore: [String: ChangeSet] = [:]
        let touched = Set(edits.groups.keys.map(\.store))
        if touched.count == 1, let store = touched.first {
            perStore[store] = changes
        } else {
            for (id, row) in changes.inserted { perStore[id.persistentStoreIdentifier ?? "", default: ChangeSet()].inserted[id] = row }
            for (id, row) in changes.updated { perStore[id.persistentStoreIdentifier ?? "", default: ChangeSet()].updated[id] = row }
            for (id, version) in changes.deleted { perStore[id.persistentStoreIdentifier ?? "", default: ChangeSet()].deleted[id] = version }
            for (id, row) in changes.committed { perStore[id.persistentStoreIdentifier ?? ""]?.committed[id] = row }
            for store in perStore.keys {
                perStore[store]?.origin = changes.origin
                perStore[store]?.author = changes.author
                perStore[store]?.contextName = changes.contextName
            }
        }
        let created = edits.groups.compactMapValues { group -> ReferenceMembership? in
            let references = group.lazy.filter(\.isInsert).map(\.reference)
            return references.isEmpty ? nil : ReferenceMembership(Array(references))
        }
        try checkTargets(of: changes, in: stores, created: created)
        try checkUniqueness(of: changes, in: base.next(stores: stores, indexes: indexes))
        return PreparedCommit(base: base, stores: stores, indexes: indexes, perStore: perStore, versions: versions)
    }

    /// Every object a saved row points at must be in the new generation: a save must not point
    /// at an object another save deleted meanwhile. (Such a save is a conflict: the context
    /// refreshes and tries again.) And every link a save makes or breaks with an object already
    /// stored must be made or broken on that object's side too, so that the store's inverse
    /// relationships agree even when a context's view of the other side was stale: a save that
    /// would leave one side behind is a conflict as well.
    private func checkTargets(
        of changes: ChangeSet, in stores: [String: [String: Generation.Table]], created: [TableEdits.Table: ReferenceMembership]
    ) throws {
        var dangling: [ManagedObjectID] = []
        var oneSided: Set<ManagedObjectID> = []
        let base = currentGeneration
        var lookup = RowLookup(stores: stores, created: created)
        // The inverse slots of the last object's entity: a save's objects come entity by entity.
        var last: (space: ObjectIDSpace, inverseSlots: [Int?])?
        func check(_ id: ManagedObjectID, _ row: Row, before: StoredRow?) {
            var points = true
            if last?.space !== id.space {
                last = (id.space, managedObjectModel.layout(for: id.entityName)?.inverseSlots ?? [])
            }
            let inverseSlots = last?.inverseSlots ?? []
            // An unchanged relationship adds no pointer, and needs no set of its old targets.
            for (index, targets) in row.relationships.enumerated() where before?.relationship(index) != targets {
                // Only pointers the save adds: an old dangling one (a no-action delete rule's) stays allowed.
                let old = before.map { Set($0.relationship(index).objectIDs) } ?? []
                let inverse = index < inverseSlots.count ? inverseSlots[index] : nil
                targets.forEachTarget { target in
                    guard !old.contains(target) else { return }
                    // A link between two objects the save creates is the context's to keep in
                    // step, as it does when it links them (and after a rebase, before it
                    // saves); checking it would cost a row lookup per new link. A link to an
                    // object already stored is checked: the target's row answers both questions.
                    guard let inverse, !lookup.isCreated(target) else {
                        if !lookup.contains(target) { points = false }
                        return
                    }
                    guard let targetRow = lookup.row(for: target) else {
                        points = false
                        return
                    }
                    if !targetRow.relationship(inverse).contains(id) { oneSided.formUnion([id, target]) }
                }
                guard let inverse, let before else { continue }
                for target in before.relationship(index).objectIDs where !targets.contains(target) {
                    if lookup.row(for: target)?.relationship(inverse).contains(id) == true { oneSided.formUnion([id, target]) }
                }
            }
            if !points { dangling.append(id) }
        }
        for (id, row) in changes.inserted { check(id, row, before: nil) }
        for (id, row) in changes.updated { check(id, row, before: base.storedRow(for: id)) }
        // A deleted object must not stay in the inverse relationships of the objects it pointed at
        // (as the store last had it: a save that linked to it after the deleter read it).
        for id in changes.deleted.keys {
            guard let layout = managedObjectModel.layout(for: id.entityName), let row = currentGeneration.row(for: id) else { continue }
            for (index, targets) in row.relationships.enumerated() where layout.relationships[index].deleteRule != .noAction {
                guard let inverse = layout.inverseSlots[index] else { continue }
                for target in targets.objectIDs {
                    guard case .permanent(let store, let reference) = target.key,
                        let targetRow = stores[store]?[target.entityName]?[stored: reference],
                        targetRow.relationship(inverse).contains(id)
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
        guard oneSided.isEmpty else {
            let ids = oneSided.sorted { $0.description < $1.description }
            throw PersistenceError(
                .conflict, objectIDs: ids,
                "\(ids.count) object(s) would disagree with the inverse of a relationship (another save changed the other side "
                    + "meanwhile): \(ids.map(\.description).joined(separator: ", ")). Nothing was saved; refresh them and save again")
        }
    }

    /// No two objects may share the values of a uniqueness constraint: a save that would make
    /// them (another save inserted the same values meanwhile) is refused, and the context's
    /// merge policy decides what to do.
    private func checkUniqueness(of changes: ChangeSet, in generation: Generation) throws {
        guard managedObjectModel.hasUniquenessConstraints else { return }
        var conflicts: [ConstraintConflict] = []
        for (id, row) in changes.inserted.merging(changes.updated, uniquingKeysWith: { a, _ in a }) {
            guard case .permanent(let store, _) = id.key, let layout = managedObjectModel.layout(for: id.entityName) else { continue }
            for constraint in layout.uniquenessConstraints {
                let values = constraint.slots.map { row.attributes[$0] }
                if let other = generation.object(
                    matching: values, slots: constraint.slots, constraint: constraint.names, excluding: id, store: store,
                    model: managedObjectModel, entity: id.entityName)
                {
                    // A clash with an object this save inserts is reported once, from the
                    // inserted object's side: an update meets it there, and of two inserts the
                    // later-numbered one clashes with the earlier.
                    if let otherNumber = other.referenceNumber, changes.inserted[other] != nil,
                        changes.inserted[id] == nil || otherNumber > id.referenceNumber ?? 0
                    {
                        continue
                    }
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

    private func checkVersions(of changes: ChangeSet, against generation: Generation) throws {
        var conflicts: [ManagedObjectID] = []
        for (id, row) in changes.updated where generation.storedRow(for: id)?.version != row.version {
            conflicts.append(id)
        }
        for (id, version) in changes.deleted where generation.storedRow(for: id)?.version != version {
            conflicts.append(id)
        }
        guard conflicts.isEmpty else { throw PersistenceError.changedSinceRead(conflicts) }
    }

    /// The reference number of a saved object's ID.
    private func reference(of id: ManagedObjectID) throws -> Int64 {
        guard let reference = id.referenceNumber else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "\(id) has no store: only saved objects can be committed")
        }
        return reference
    }

    /// The identifier of the store of `id`, which must be one of this coordinator's writable stores.
    private func writableStore(of id: ManagedObjectID) throws -> String {
        guard let storeID = id.persistentStoreIdentifier, let store = persistentStores.first(where: { $0.identifier == storeID }) else {
            throw PersistenceError(.storeNotFound, objectIDs: [id], "the store of \(id) is not part of this coordinator")
        }
        guard !store.isReadOnly else {
            throw PersistenceError(.readOnlyStore, objectIDs: [id], "the store \(storeID) is read-only\(store.readOnlyReason.map { ": \($0)" } ?? "")")
        }
        return storeID
    }

    /// Applies one table's edits to it and to its indexes. A new object starts at version 1, a
    /// changed one goes one past the version its context read. An object written back after
    /// another save deleted it (its context read it: its version is above 0) goes on above
    /// every version this coordinator has written and the one its context read, so that a
    /// context still holding an older version of it meets a conflict, not a version that
    /// happens to match.
    private func apply(
        _ edits: [TableEdits.Edit], to table: TableEdits.Table,
        stores: inout [String: [String: Generation.Table]], indexes: inout [String: [String: [Int: AttributeIndex]]],
        versions: inout [ManagedObjectID: Int64]
    ) throws {
        // Taken out of the generation while they change, so that they are not shared and change in place.
        var rows = stores[table.store]?.removeValue(forKey: table.entity) ?? [:]
        var tableIndexes = indexes[table.store]?.removeValue(forKey: table.entity) ?? [:]
        let indexed = managedObjectModel.layout(for: table.entity)?.indexedAttributes ?? []
        var indexChanges = Dictionary(uniqueKeysWithValues: indexed.map { slot in
            (slot, [AttributeIndex.Change]())
        })
        var written: [(reference: Int64, row: Row?)] = []
        written.reserveCapacity(edits.count)
        for edit in edits {
            let old = rows[stored: edit.reference]
            if edit.isInsert, old != nil {
                throw PersistenceError(
                    .conflict, objectIDs: [edit.objectID],
                    "another save stored \(edit.objectID) first (it wrote the object back after a deletion, or the store handed "
                        + "its reference out twice); nothing was saved")
            }
            let new: Row? = edit.row.map { row in
                var row = row
                if !edit.isInsert {
                    row.version += 1
                } else if row.version > 0 {
                    row.version = max(row.version, highestVersionWritten) + 1
                } else {
                    row.version = 1
                }
                highestVersionWritten = max(highestVersionWritten, row.version)
                versions[edit.objectID] = row.version
                return row
            }
            written.append((edit.reference, new))
            for slot in indexed {
                let before: AttributeValue?? = old.map { $0.attribute(slot) }
                let after: AttributeValue?? = new.map { $0.attributes[slot] }
                if old != nil, new != nil, before == after { continue }
                indexChanges[slot]?.append(AttributeIndex.Change(reference: edit.reference, old: before, new: after))
            }
        }
        rows.apply(written)
        for (slot, changes) in indexChanges where !changes.isEmpty {
            tableIndexes[slot, default: AttributeIndex()].apply(changes)
        }
        stores[table.store, default: [:]][table.entity] = rows
        if !tableIndexes.isEmpty { indexes[table.store, default: [:]][table.entity] = tableIndexes }
    }
}
