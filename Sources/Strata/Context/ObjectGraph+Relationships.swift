import OrderedCollections

extension ObjectGraph {
    /// Sets the targets of one relationship of `source`, and keeps the inverse relationship of
    /// every object that joins or leaves in step with it.
    func setTargets(_ targets: OrderedSet<ManagedObjectID>, of source: ManagedObject, at index: Int) {
        source.willAccessValues()
        guard source.layout.relationships[index].isToMany else { return setTarget(targets.first, of: source, at: index) }
        let old = OrderedSet(source.storage.relationships[index].objectIDs)
        let new = RelationshipTargets.toMany(targets)
        guard replaceTargets(of: source, at: index, with: new), let inverseIndex = source.layout.inverseSlots[index] else { return }
        let kept = Set(new.objectIDs)
        for removed in old where !kept.contains(removed) {
            remove(source.objectID, from: object(for: removed), at: inverseIndex)
        }
        for added in new.objectIDs where !old.contains(added) {
            link(object(for: added), at: inverseIndex, to: source, forwardIndex: index)
        }
    }

    /// ``setTargets(_:of:at:)`` for a to-one relationship, with no set made for its one target
    /// (a new object's to-one set: 3% of inserting 100,000 people with their managers).
    private func setTarget(_ target: ManagedObjectID?, of source: ManagedObject, at index: Int) {
        let old: ManagedObjectID? = if case .one(let id) = source.storage.relationships[index].read { id } else { nil }
        guard replaceTargets(of: source, at: index, with: .toOne(target)), let inverseIndex = source.layout.inverseSlots[index] else { return }
        if let old, old != target { remove(source.objectID, from: object(for: old), at: inverseIndex) }
        if let target, target != old { link(object(for: target), at: inverseIndex, to: source, forwardIndex: index) }
    }

    /// Stores `new` as the targets of one relationship of `source`, the change announced;
    /// `false`, and nothing done, when they are its targets already.
    private func replaceTargets(of source: ManagedObject, at index: Int, with new: RelationshipTargets) -> Bool {
        guard source.storage.relationships[index] != new else { return false }
        willChange(source)
        source.storage.relationships[index] = new
        didChange(source)
        return true
    }

    /// Takes `id` out of one relationship of `object`, without touching any inverse.
    func remove(_ id: ManagedObjectID, from object: ManagedObject, at index: Int) {
        catchUp(object, at: index)
        guard !object.isFault else { return }  // gone from the store: nothing to take out
        switch object.storage.relationships[index].read {
        case .one(id):
            willChange(object)
            object.storage.relationships[index] = .toOne(nil)
            didChange(object)
        case .many(var ids):
            guard ids.contains(id) else { return }
            willChange(object)
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
        catchUp(target, at: inverseIndex)
        // Gone from the store: the coordinator refuses a save pointing at it, and a rebase
        // drops the pointer.
        guard !target.isFault else { return }
        switch target.storage.relationships[inverseIndex].read {
        case .one(let previous):
            guard previous != source.objectID else { return }
            if let previous {
                remove(target.objectID, from: object(for: previous), at: forwardIndex)
            }
            willChange(target)
            target.storage.relationships[inverseIndex] = .toOne(source.objectID)
            didChange(target)
        case .many(var ids):
            guard !ids.contains(source.objectID) else { return }
            willChange(target)
            target.storage.relationships[inverseIndex] = .toOne(nil)  // so that `ids` is not copied on write
            ids.append(source.objectID)
            target.storage.relationships[inverseIndex] = .toMany(ids)
            didChange(target)
        }
    }

    /// Readies an object whose relationship at `index` is about to change as the inverse of
    /// another's.
    ///
    /// An object keeps the values of the generation it was read from, which can be older than
    /// the context's now (a save, a refresh, a merge moved the context on). Changed on the
    /// strength of those values, an inverse change could be lost: adding a book to an author
    /// whose old values list it already changes nothing, though the store's author no longer
    /// lists it. So the object first catches up with the context's generation:
    /// - without unsaved changes, it takes that generation's values (its transient attributes stay);
    /// - with unsaved changes, only this relationship is merged onto that generation's, and the
    ///   object's snapshot takes that relationship as its saved value, so that a later rebase
    ///   counts the inverse change as the context's own. Its other values keep the version they
    ///   were read at: a save still conflicts on what another save changed there.
    func catchUp(_ object: ManagedObject, at index: Int) {
        object.willAccessValues()
        guard !object.isInserted, !object.isDeleted, let snapshot = object.snapshot,
              let current = storedRow(for: object.objectID), current != snapshot else { return }
        if object.isUpdated {
            guard current.relationships[index] != snapshot.relationships[index] else { return }
            object.storage.relationships[index] = mergedTargets(
                object.storage.relationships[index], onto: current.relationships[index], since: snapshot.relationships[index],
                contextWins: true)
            object.snapshot?.relationships[index] = current.relationships[index]
            rebasedSinceSave = true
        } else {
            var values = current
            for (slot, attribute) in object.layout.attributes.enumerated() where attribute.isTransient {
                values.attributes[slot] = object.storage.attributes[slot]
            }
            object.storage = values
            object.snapshot = current
        }
    }

    /// Before a commit that follows a rebase: every link the objects to save make or break,
    /// relative to the values they were read with, is made or broken on the other side too.
    ///
    /// Setting a relationship keeps both sides in step as it goes; a rebase decides object by
    /// object (a merge policy may keep one side's change and the store's value on the other),
    /// and can leave two objects of the context disagreeing. The coordinator refuses a save
    /// that would store such a disagreement; this pass keeps the context from making one.
    /// The side being saved wins: its change is what the save is about.
    func repairInverses() {
        guard rebasedSinceSave else { return }
        for _ in 0..<4 {
            var repaired = false
            for source in inserted.values.elements + updated.values.elements where !source.isDeleted {
                for index in source.storage.relationships.indices {
                    guard let inverse = source.layout.inverseSlots[index] else { continue }
                    let now = source.storage.relationships[index]
                    // A new object, or one written back after another save deleted it, makes every link anew.
                    let isNew = source.isInserted || resurrected.contains(ObjectIdentifier(source))
                    let before = isNew ? nil : source.snapshot?.relationships[index]
                    guard now != before else { continue }
                    // Only objects there are: a pointer at a deleted one is the coordinator's to refuse.
                    let exists = { (id: ManagedObjectID) in self.registered[id] != nil || self.storedRow(for: id) != nil }
                    for id in now.objectIDs where before?.contains(id) != true && exists(id) {
                        let target = object(for: id)
                        guard !target.isDeleted else { continue }
                        catchUp(target, at: inverse)
                        guard !target.storage.relationships[inverse].contains(source.objectID) else { continue }
                        link(target, at: inverse, to: source, forwardIndex: index)
                        repaired = true
                    }
                    for id in before?.objectIDs ?? [] where !now.contains(id) && exists(id) {
                        let target = object(for: id)
                        guard !target.isDeleted else { continue }
                        catchUp(target, at: inverse)
                        guard target.storage.relationships[inverse].contains(source.objectID) else { continue }
                        remove(source.objectID, from: target, at: inverse)
                        repaired = true
                    }
                }
            }
            if !repaired { break }
        }
    }
}
