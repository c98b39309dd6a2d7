import OrderedCollections

extension ObjectGraph {
    /// Sets the targets of one relationship of `source`, and keeps the inverse relationship of
    /// every object that joins or leaves in step with it.
    func setTargets(_ targets: OrderedSet<ManagedObjectID>, of source: ManagedObject, at index: Int) {
        source.willAccessValues()
        let relationship = source.layout.relationships[index]
        let old = OrderedSet(source.storage.relationships[index].objectIDs)
        let new: RelationshipTargets = relationship.isToMany ? .toMany(targets) : .toOne(targets.first)
        guard source.storage.relationships[index] != new else { return }
        source.storage.relationships[index] = new
        didChange(source)

        guard let inverseIndex = source.layout.inverseSlots[index] else { return }
        let kept = Set(new.objectIDs)
        for removed in old where !kept.contains(removed) {
            remove(source.objectID, from: object(for: removed), at: inverseIndex)
        }
        for added in new.objectIDs where !old.contains(added) {
            link(object(for: added), at: inverseIndex, to: source, forwardIndex: index)
        }
    }

    /// Takes `id` out of one relationship of `object`, without touching any inverse.
    func remove(_ id: ManagedObjectID, from object: ManagedObject, at index: Int) {
        catchUp(object)
        switch object.storage.relationships[index] {
        case .toOne(id):
            object.storage.relationships[index] = .toOne(nil)
            didChange(object)
        case .toMany(var ids):
            guard ids.contains(id) else { return }
            object.storage.relationships[index] = .toOne(nil)  // so that `ids` is not copied on write
            ids.remove(id)
            object.storage.relationships[index] = .toMany(ids)
            didChange(object)
        default:
            break
        }
    }

    /// Points the inverse relationship of `target` at `source`. When that inverse is to-one,
    /// the object it pointed at before loses `target` from its own forward relationship.
    private func link(_ target: ManagedObject, at inverseIndex: Int, to source: ManagedObject, forwardIndex: Int) {
        catchUp(target)
        switch target.storage.relationships[inverseIndex] {
        case .toOne(let previous):
            guard previous != source.objectID else { return }
            if let previous {
                remove(target.objectID, from: object(for: previous), at: forwardIndex)
            }
            target.storage.relationships[inverseIndex] = .toOne(source.objectID)
            didChange(target)
        case .toMany(var ids):
            guard !ids.contains(source.objectID) else { return }
            target.storage.relationships[inverseIndex] = .toOne(nil)  // so that `ids` is not copied on write
            ids.append(source.objectID)
            target.storage.relationships[inverseIndex] = .toMany(ids)
            didChange(target)
        }
    }

    /// Readies an object whose relationship is about to change as the inverse of another's.
    ///
    /// An object without unsaved changes keeps the values of the generation it was read from,
    /// which can be older than the context's now (a save, a refresh, a merge moved the context
    /// on). Changed on the strength of those values, an inverse change could be lost: adding a
    /// book to an author whose old values list it already changes nothing, though the store's
    /// author no longer does. So such an object first takes the context's values (its transient
    /// attributes stay). An object with unsaved changes keeps them: its save is checked against
    /// the version it read, and a conflict brings it up to date.
    func catchUp(_ object: ManagedObject) {
        object.willAccessValues()
        guard !object.isUpdated, !object.isInserted, !object.isDeleted,
              let current = storedRow(for: object.objectID), current != object.snapshot else { return }
        var values = current
        for (index, attribute) in object.layout.attributes.enumerated() where attribute.isTransient {
            values.attributes[index] = object.storage.attributes[index]
        }
        object.storage = values
        object.snapshot = current
    }
}
