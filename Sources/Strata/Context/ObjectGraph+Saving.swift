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
    /// context keeps its changes.
    func save() throws {
        processPendingChanges()
        guard hasChanges else { return }
        for object in Array(inserted.values) + updated.values + deleted.values {
            object.willSave()
        }
        processPendingChanges()
        try validate()

        let newObjects = inserted.values.filter { !$0.isDeleted }
        try assignPermanentIDs(to: newObjects)
        let changedObjects = updated.values.filter { !$0.isDeleted && !$0.isInserted && $0.hasChangedValues }
        let goneObjects = deleted.values.filter { !$0.isInserted }

        var changes = ChangeSet()
        for object in newObjects { changes.inserted[object.objectID] = object.storedRow }
        for object in changedObjects { changes.updated[object.objectID] = object.storedRow }
        for object in goneObjects { changes.deleted[object.objectID] = object.snapshot?.version ?? 0 }

        if !changes.isEmpty {
            generation = try coordinator.commitSynchronously(changes)
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
        for object in saved { object.didSave() }
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
