import OrderedCollections

extension ObjectGraph {
    /// Runs the delete rules of deleted objects whose rules have not run yet: nullify takes
    /// them out of their inverse relationships, cascade deletes their destinations (whose rules
    /// run in turn). `deny` is checked at save, once every cascade is known.
    func processPendingChanges() {
        while let object = deleted.values.first(where: { !propagatedDeletes.contains(ObjectIdentifier($0)) }) {
            propagatedDeletes.insert(ObjectIdentifier(object))
            object.prepareForDeletion()
            for (index, relationship) in object.layout.relationships.enumerated() {
                let targets = object.storage.relationships[index].objectIDs
                switch relationship.deleteRule {
                case .cascade:
                    for id in targets { delete(self.object(for: id)) }
                    fallthrough
                case .nullify:
                    guard let inverseIndex = object.layout.inverseSlots[index] else { continue }
                    for id in targets { remove(object.objectID, from: self.object(for: id), at: inverseIndex) }
                case .deny, .noAction:
                    continue
                }
            }
        }
    }

    /// Saves the context's changes: runs delete rules, validates, gives new objects permanent
    /// IDs, and commits through the coordinator. When it throws, nothing was saved and the
    /// context keeps its changes. Returns what the save changed, if anything.
    @discardableResult
    func save() throws -> ContextDidSave? {
        processPendingChanges()
        guard hasChanges else { return nil }
        for object in Array(inserted.values) + updated.values + deleted.values {
            object.willSave()
        }
        processPendingChanges()
        try validate()

        let newObjects = inserted.values.filter { !$0.isDeleted }
        try assignPermanentIDs(to: newObjects)
        var committed: ChangeSet?
        for attempt in 1... {
            let changes = makeChangeSet(newObjects: newObjects)
            guard !changes.isEmpty else { break }
            do {
                generation = try coordinator.commitSynchronously(changes)
                committed = changes
                break
            } catch let error as PersistenceError where error.code == .conflict && !error.objectIDs.isEmpty {
                // Another save got there first. Under a merge policy, rebase on the latest
                // generation and try again (a third save may intervene, hence the loop).
                guard mergePolicy != .error, attempt < 20 else { throw conflictError(error) }
                resolveConflicts(error.objectIDs)
            }
        }
        let saved = newObjects + updated.values.filter { !$0.isDeleted }
        for object in saved {
            object.snapshot = generation.row(for: object.objectID) ?? object.snapshot
            object.isInserted = false
            object.isUpdated = false
        }
        for object in Array(deleted.values) {
            unregister(object)
            object.isDeleted = false
        }
        inserted.removeAll()
        updated.removeAll()
        propagatedDeletes.removeAll()
        resurrected.removeAll()
        for object in saved { object.didSave() }
        guard let committed, let context else { return nil }
        return ContextDidSave(
            insertedObjectIDs: Set(committed.inserted.keys), updatedObjectIDs: Set(committed.updated.keys),
            deletedObjectIDs: Set(committed.deleted.keys), queryGeneration: QueryGenerationToken(number: generation.number),
            transactionAuthor: transactionAuthor, contextName: name, context: context)
    }

    private func makeChangeSet(newObjects: [ManagedObject]) -> ChangeSet {
        var changes = ChangeSet()
        if let context { changes.origin = ContextDidSaveOrigin(context: context, transactionAuthor: transactionAuthor, contextName: name) }
        for object in newObjects { changes.inserted[object.objectID] = object.storedRow }
        for object in updated.values where !object.isDeleted && !object.isInserted && object.hasChangedValues {
            if resurrected.contains(ObjectIdentifier(object)) {
                changes.inserted[object.objectID] = object.storedRow
            } else {
                changes.updated[object.objectID] = object.storedRow
            }
        }
        for object in deleted.values where !object.isInserted {
            changes.deleted[object.objectID] = object.snapshot?.version ?? 0
        }
        return changes
    }

    /// The conflict error with every object's versions and values.
    private func conflictError(_ error: PersistenceError) -> PersistenceError {
        let latest = coordinator.currentGeneration
        var described = error
        described.conflicts = error.objectIDs.compactMap { id in
            guard let object = registered[id] else { return nil }
            let store = latest.row(for: id)
            func values(_ row: Row?) -> [String: AttributeValue?] {
                guard let row else { return [:] }
                return Dictionary(uniqueKeysWithValues: object.layout.attributes.enumerated().map { ($1.name, row.attributes[$0]) })
            }
            return MergeConflict(
                objectID: id, contextVersion: object.snapshot?.version ?? 0, storeVersion: store?.version,
                contextValues: values(object.storage), storeValues: values(store))
        }
        return described
    }

    /// Rebases conflicting objects on the latest generation as the merge policy says.
    private func resolveConflicts(_ ids: [ManagedObjectID]) {
        let latest = coordinator.currentGeneration
        generation = latest
        for id in ids {
            guard let object = registered[id] else { continue }
            let old = object.snapshot ?? Row(emptyFor: object.layout)
            guard let store = latest.row(for: id) else {
                // The other save deleted the object.
                if mergePolicy == .overwrite || mergePolicy == .mergeByPropertyObjectTrump, !object.isDeleted {
                    resurrected.insert(ObjectIdentifier(object))
                } else {
                    unregister(object)
                    object.isDeleted = false
                    object.isUpdated = false
                }
                continue
            }
            switch mergePolicy {
            case .error:
                break
            case .overwrite:
                break
            case .rollback:
                object.storage = store
                updated[ObjectIdentifier(object)] = nil
                deleted[ObjectIdentifier(object)] = nil
                object.isUpdated = false
                object.isDeleted = false
            case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
                let contextWins = mergePolicy == .mergeByPropertyObjectTrump
                var merged = store
                for index in object.storage.attributes.indices {
                    let mine = object.storage.attributes[index] != old.attributes[index]
                    let theirs = store.attributes[index] != old.attributes[index]
                    if mine && (contextWins || !theirs) { merged.attributes[index] = object.storage.attributes[index] }
                }
                for index in object.storage.relationships.indices {
                    let mine = object.storage.relationships[index] != old.relationships[index]
                    let theirs = store.relationships[index] != old.relationships[index]
                    if mine && (contextWins || !theirs) { merged.relationships[index] = object.storage.relationships[index] }
                }
                object.storage = merged
            }
            object.snapshot = store
        }
    }

    /// Every validation problem of the objects about to be saved, thrown as one error.
    private func validate() throws {
        var errors: [ValidationError] = []
        for object in inserted.values.elements + updated.values.elements where !object.isDeleted {
            errors += object.validationErrors()
        }
        for object in deleted.values {
            for (index, relationship) in object.layout.relationships.enumerated() where relationship.deleteRule == .deny {
                let remaining = object.storage.relationships[index].objectIDs.filter { registered[$0]?.isDeleted != true }
                if !remaining.isEmpty {
                    errors.append(
                        ValidationError(
                            .deleteDenied, entity: object.entity.name, key: relationship.name, objectID: object.objectID,
                            "the object cannot be deleted while its '\(relationship.name)' relationship holds "
                                + "\(remaining.count) object(s) (delete rule: deny)"))
                }
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Replaces new objects' temporary IDs with permanent ones, everywhere the context holds them.
    private func assignPermanentIDs(to objects: [ManagedObject]) throws {
        let mapping = try coordinator.obtainPermanentIDs(for: objects.map(\.objectID))
        guard !mapping.isEmpty else { return }
        for object in objects {
            guard let permanent = mapping[object.objectID] else { continue }
            registered[object.objectID] = nil
            object.objectID = permanent
            registered[permanent] = object
        }
        for object in inserted.values.elements + updated.values.elements + deleted.values.elements {
            object.storage.relationships = object.storage.relationships.map { $0.replacing(mapping) }
            for (index, value) in object.storage.attributes.enumerated() {
                if case .objectID(let id)? = value, let permanent = mapping[id] {
                    object.storage.attributes[index] = .objectID(permanent)
                }
            }
        }
    }

    /// Throws away unsaved changes: inserted objects leave the context, changed and deleted
    /// ones get their saved values back.
    func rollback() {
        for object in Array(inserted.values) {
            unregister(object)
            object.isInserted = false
            object.isDeleted = false
        }
        for object in updated.values.elements + deleted.values.elements {
            if let snapshot = object.snapshot { object.storage = snapshot }
            object.isUpdated = false
            object.isDeleted = false
        }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        propagatedDeletes.removeAll()
    }

    /// Lets every object go; the next read pins the latest generation.
    func reset() {
        for object in Array(registered.values) + inserted.values { unregister(object) }
        registered.removeAll()
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        propagatedDeletes.removeAll()
        unpinGeneration()
    }

    /// Moves to the latest generation and reloads `object` from it. With `mergeChanges`, the
    /// object keeps its unsaved changes on top of the latest saved values (and the next save
    /// will not conflict on them); without, it becomes a fault and its changes are lost.
    func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.graph === self else { return }
        generation = coordinator.currentGeneration
        guard !object.isInserted else { return }
        let latest = generation.row(for: object.objectID)
        if mergeChanges, !object.isFault, let latest {
            let old = object.snapshot ?? latest
            var merged = latest
            for index in object.storage.attributes.indices where object.storage.attributes[index] != old.attributes[index] {
                merged.attributes[index] = object.storage.attributes[index]
            }
            for index in object.storage.relationships.indices
            where object.storage.relationships[index] != old.relationships[index] {
                merged.relationships[index] = object.storage.relationships[index]
            }
            object.storage = merged
            object.snapshot = latest
            return
        }
        updated[ObjectIdentifier(object)] = nil
        object.isUpdated = false
        object.storage = Row(emptyFor: object.layout)
        object.snapshot = nil
        object.isFault = true
    }
}

extension ManagedObject {
    /// The row to store: current values, transient properties left out, and the version read.
    var storedRow: Row {
        var row = storage
        for (index, attribute) in layout.attributes.enumerated() where attribute.isTransient {
            row.attributes[index] = nil
        }
        for (index, relationship) in layout.relationships.enumerated() where relationship.isTransient {
            row.relationships[index] = relationship.isToMany ? .toMany([]) : .toOne(nil)
        }
        row.version = snapshot?.version ?? 0
        return row
    }

    /// Whether any stored value differs from the last saved one.
    var hasChangedValues: Bool {
        guard let snapshot else { return true }
        return storage.attributes != snapshot.attributes || storage.relationships != snapshot.relationships
    }
}
