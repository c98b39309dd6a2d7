import OrderedCollections

extension ObjectGraph {
    /// Runs the delete rules of deleted objects whose rules have not run yet: nullify takes
    /// them out of their inverse relationships, cascade deletes their destinations (whose rules
    /// run in turn). `deny` is checked at save, once every cascade is known.
    func processPendingChanges() {
        finishMergedDeletes()
        while let object = deleted.values.first(where: { !propagatedDeletes.contains(ObjectIdentifier($0)) }) {
            propagatedDeletes.insert(ObjectIdentifier(object))
            applyDeleteRules(of: object)
        }
    }

    /// Applies the delete rules of a deleted object to what its relationships hold now. Safe
    /// to run again: a deleted object rebased on a newer generation runs them once more, so
    /// that what another save linked to it meanwhile is nullified or cascaded too.
    private func applyDeleteRules(of object: ManagedObject) {
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

    /// Saves the context's changes: runs delete rules, validates, gives new objects permanent
    /// IDs, and commits through the coordinator. When it throws, nothing was saved and the
    /// context keeps its changes. Returns what the save changed, if anything.
    @discardableResult
    func save() throws -> ContextDidSave? {
        processPendingChanges()
        guard hasChanges else {
            // Core Data sends a save with nothing in it to the stores all the same.
            if parent == nil { try coordinator.sendEmptySave() }
            return nil
        }
        if let parent {
            // Core Data posts a child's save as any other: what it pushed to its parent, under
            // the IDs the child has (temporary for new objects), at the generation it reads.
            let pushed = (
                inserted: Set(inserted.values.filter { !$0.isDeleted }.map(\.objectID)),
                updated: Set(updated.values.filter { !$0.isDeleted && !$0.isInserted }.map(\.objectID)),
                deleted: Set(deleted.values.filter { !$0.isInserted }.map(\.objectID)))
            try pushChanges(to: parent)
            guard let context else { return nil }
            return ContextDidSave(
                insertedObjectIDs: pushed.inserted, updatedObjectIDs: pushed.updated, deletedObjectIDs: pushed.deleted,
                queryGeneration: QueryGenerationToken(number: generation.number), transactionAuthor: transactionAuthor,
                contextName: name, context: context)
        }
        for object in Array(inserted.values) + updated.values + deleted.values {
            object.willSave()
        }
        processPendingChanges()
        deriveAttributes()
        try validate()

        // Objects given permanent IDs by obtainPermanentIDs(for:) keep them: their IDs may be
        // in other contexts' hands already.
        try assignPermanentIDs(to: inserted.values.filter { !$0.isDeleted && !permanentIDsObtained.contains(ObjectIdentifier($0)) })
        var didSave: ContextDidSave?
        var versions: [ManagedObjectID: Int64] = [:]
        var newObjects: [ManagedObject] = []
        // The values each rebased object had been read with when the save began: a save that
        // meets several other saves replays the context's changes since then onto the latest,
        // so that a change is not lost because one of those saves wrote the same value.
        var readWith: [ObjectIdentifier: Row] = [:]
        for attempt in 1... {
            repairInverses()
            let candidates = inserted.values.filter { !$0.isDeleted }
            let changes = makeChangeSet(newObjects: candidates)
            guard !changes.isEmpty else { break }
            do {
                let result = try coordinator.commitSynchronously(changes)
                (generation, didSave, versions) = (result.generation, result.didSave, result.versions)
                newObjects = candidates
                break
            } catch let error as PersistenceError where error.code == .conflict && !error.objectIDs.isEmpty {
                // Another save got there first. Under a merge policy, rebase on the latest
                // generation and try again (a third save may intervene, hence the loop).
                guard mergePolicy != .error, attempt < 20 else { throw conflictError(error) }
                resolveConflicts(error.objectIDs, readWith: &readWith)
            } catch let error as PersistenceError where error.code == .constraintConflict {
                guard mergePolicy != .error, attempt < 20, try resolveConstraintConflicts(error.constraintConflicts) else { throw error }
            }
        }
        let saved = newObjects + updated.values.filter { !$0.isDeleted }
        // An object whose changes came to nothing was not written: it keeps the snapshot its
        // values go with, however much newer the generation's row is. A written one's snapshot
        // is what it wrote, at the version the store gave it: where the commit put that row in
        // its table's columns (a large save), the object reads it there and lets its own row
        // go, so that a context saving batch after batch does not hold each row twice.
        var lookup = RowLookup(stores: generation.stores)
        for object in saved where object.hasChangedValues || resurrected.contains(ObjectIdentifier(object)) {
            guard let version = versions[object.objectID] else { continue }
            if object.layout.storesEveryProperty, let (columns, position) = lookup.basePosition(of: object.objectID),
                columns.columns.versions[position] == version
            {
                object.rebase(onto: columns, at: position)
                continue
            }
            var row = object.storedRow
            row.version = version
            object.snapshot = row
        }
        finishSave(of: saved)
        return didSave
    }

    /// After a save took the context's changes (to the store, or to the parent context): marks
    /// the `saved` objects clean, lets the deleted ones go, empties the lists of changes, and
    /// tells the saved objects.
    func finishSave(of saved: [ManagedObject]) {
        for object in saved {
            object.isInserted = false
            object.isUpdated = false
        }
        for object in Array(deleted.values) {
            unregister(object)
            object.isDeleted = false
        }
        inserted.removeAll()
        updated.removeAll()
        permanentIDsObtained.removeAll()
        propagatedDeletes.removeAll()
        resurrected.removeAll()
        rebasedSinceSave = false
        for object in saved { object.didSave() }
    }

    private func makeChangeSet(newObjects: [ManagedObject]) -> ChangeSet {
        var changes = ChangeSet()
        if let context { changes.origin = ContextDidSaveOrigin(context: context, transactionAuthor: transactionAuthor, contextName: name) }
        changes.inserted.reserveCapacity(newObjects.count)
        for object in newObjects { changes.inserted[object.objectID] = object.storedRow }
        for object in updated.values where !object.isDeleted && !object.isInserted && object.hasChangedValues {
            if resurrected.contains(ObjectIdentifier(object)) {
                changes.inserted[object.objectID] = object.storedRow
            } else {
                let row = object.storedRow
                changes.updated[object.objectID] = row
                if let snapshot = object.snapshot, snapshot.version == row.version { changes.committed[object.objectID] = snapshot }
            }
        }
        for object in deleted.values where !object.isInserted {
            changes.deleted[object.objectID] = object.snapshot?.version ?? 0
        }
        return changes
    }

    /// Resolves uniqueness clashes as the merge policy says: an inserted object that clashes
    /// with a stored one becomes that object (Core Data's "upsert"), keeping its own attribute
    /// values (object trump, overwrite) or the store's (store trump, rollback). Its to-many
    /// relationships take the stored object's targets and its own (overwrite: its own only);
    /// a to-one relationship follows the attributes' rule. Every object on the other side of a
    /// link is then put in step. Returns false when a clash cannot be resolved that way (an
    /// update clashed), so the save fails.
    private func resolveConstraintConflicts(_ conflicts: [ConstraintConflict]) throws -> Bool {
        let latest = coordinator.latestGeneration()
        generation = latest
        rebasedSinceSave = true
        let keepMine = mergePolicy == .mergeByPropertyObjectTrump || mergePolicy == .overwrite
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        // What the context's other objects believe the relationships of each upserted object
        // hold: the inserted object's, and the stored object's as this context had it. The
        // merged values may keep neither.
        var believed: [ManagedObjectID: [[RelationshipTargets]]] = [:]
        for conflict in conflicts {
            guard let stored = conflict.storeObjectID, let storeRow = latest.row(for: stored) else { return false }
            for id in conflict.conflictingObjectIDs {
                guard let object = registered[id], object.isInserted, mapping[id] == nil else { return false }
                // The stored object, with what this context changed of it (if it has it), then
                // the inserted object's values where the policy says they win.
                var merged = storeRow
                if let held = registered[stored], !held.isFault {
                    believed[stored, default: []].append(held.storage.relationships)
                    if held.isUpdated {
                        merged = merge(held.storage, onto: storeRow, since: held.snapshot ?? storeRow, contextWins: true)
                    }
                }
                if keepMine {
                    for index in merged.attributes.indices where object.storage.attributes[index] != nil || mergePolicy == .overwrite {
                        merged.attributes[index] = object.storage.attributes[index]
                    }
                }
                for index in merged.relationships.indices {
                    switch (merged.relationships[index].read, object.storage.relationships[index].read) {
                    case (.many(var theirs), .many(let ours)) where mergePolicy != .overwrite:
                        // Links other objects made to the inserted object are theirs, not in
                        // conflict: they carry over to the stored object.
                        theirs.append(contentsOf: ours)
                        merged.relationships[index] = .toMany(theirs)
                    default:
                        let ours = object.storage.relationships[index]
                        if mergePolicy == .overwrite || (keepMine && !ours.isEmpty) { merged.relationships[index] = ours }
                    }
                }
                believed[stored, default: []].append(object.storage.relationships)
                inserted[ObjectIdentifier(object)] = nil
                registered[id] = nil
                object.isInserted = false
                if let existing = registered[stored] {
                    // The stored object is in this context already: it takes the values, and
                    // the inserted object leaves.
                    existing.willAccessValues()
                    existing.storage = merged
                    existing.snapshot = storeRow
                    didChange(existing)
                    object.graph = nil
                } else {
                    object.objectID = stored
                    object.storage = merged
                    object.snapshot = storeRow
                    object.isFault = false
                    registered[stored] = object
                    announce(stored, registered: true)
                    didChange(object)
                }
                mapping[id] = stored
            }
        }
        for object in inserted.values.elements + updated.values.elements + deleted.values.elements {
            object.storage.relationships = object.storage.relationships.map { $0.replacing { mapping[$0] } ?? $0 }
        }
        // What the store held and what the context believed now agree with the merged values:
        // links the merge dropped are undone on the other side, links it kept are made there.
        for object in updated.values {
            guard let rows = believed[object.objectID] else { continue }
            reconcileInverses(of: object, from: object.snapshot ?? object.storage)
            for relationships in rows {
                var row = object.storage
                row.relationships = relationships.map { $0.replacing { mapping[$0] } ?? $0 }
                reconcileInverses(of: object, from: row)
            }
        }
        return true
    }

    /// The conflict error with every object's versions and values.
    private func conflictError(_ error: PersistenceError) -> PersistenceError {
        let latest = coordinator.latestGeneration()
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
    private func resolveConflicts(_ ids: [ManagedObjectID], readWith: inout [ObjectIdentifier: Row]) {
        let latest = coordinator.latestGeneration()
        generation = latest
        rebasedSinceSave = true
        for id in ids {
            guard let object = registered[id] else { continue }
            if object.isInserted {
                // A new object that points at one another save deleted: the pointer goes.
                object.storage = withoutMissingTargets(object.storage)
                continue
            }
            let old = object.snapshot ?? Row(emptyFor: object.layout)
            let firstRead = readWith[ObjectIdentifier(object)] ?? old
            readWith[ObjectIdentifier(object)] = firstRead
            let mine = object.storage
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
            // Written back by another save meanwhile: an update from here on.
            resurrected.remove(ObjectIdentifier(object))
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
                object.storage = merge(
                    object.storage, onto: store, since: old, attributesSince: firstRead, contextWins: mergePolicy == .mergeByPropertyObjectTrump)
            }
            if mergePolicy == .overwrite { object.storage = withoutMissingTargets(object.storage) }
            object.snapshot = store
            // Links the store holds and links the context made: each side agrees with the result.
            reconcileInverses(of: object, from: store)
            reconcileInverses(of: object, from: mine)
            if object.isDeleted { applyDeleteRules(of: object) }
        }
        processPendingChanges()
    }

    /// Every validation problem of the objects about to be saved, thrown as one error.
    private func validate() throws {
        var errors: [ValidationError] = []
        // Through the objects' own validateFor… methods, as Core Data's save calls them, so that
        // a subclass's checks take part; every problem of every object is gathered.
        func gather(_ check: () throws -> Void) throws {
            do {
                try check()
            } catch let error as ValidationError {
                errors.append(error)
            }
        }
        for object in inserted.values.elements + updated.values.elements where !object.isDeleted {
            // An update to an object whose values could not be loaded (another save deleted it)
            // is not validated: the coordinator reports it as the conflict it is.
            if !object.isInserted, object.snapshot == nil { continue }
            try gather(object.isInserted ? object.validateForInsert : object.validateForUpdate)
        }
        for object in deleted.values { try gather(object.validateForDelete) }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Replaces new objects' temporary IDs with permanent ones, everywhere the context holds them.
    func assignPermanentIDs(to objects: [ManagedObject]) throws {
        let old = objects.map(\.objectID)
        let new = try coordinator.obtainPermanentIDs(for: old)
        let mapping = ObjectIDMap(replacing: old, with: new)
        guard !mapping.isEmpty else { return }
        var released: [ManagedObjectID] = []
        var taken: [ManagedObjectID] = []
        taken.reserveCapacity(objects.count)
        for (object, permanent) in zip(objects, new) where permanent != object.objectID {
            // (A temporary ID is no store's: announcing it does nothing.)
            if registered.removeValue(forKey: object.objectID) != nil, !object.objectID.isTemporaryID { released.append(object.objectID) }
            object.objectID = permanent
            registered[permanent] = object
            taken.append(permanent)
        }
        // Once for all, not per object: an announcement groups its IDs by store first.
        announce(released, registered: false)
        announce(taken, registered: true)
        for objects in [inserted.values, updated.values, deleted.values] {
            for object in objects {
                // In place, and only where the mapping holds a target. (Not only temporary IDs: a
                // new object whose save failed keeps the permanent ID it was given, and gets a
                // fresh one on the next try, since reference numbers are never handed out twice.)
                for index in object.storage.relationships.indices {
                    if let replaced = object.storage.relationships[index].replacing({ mapping[$0] }) {
                        object.storage.relationships[index] = replaced
                    }
                }
                for index in object.layout.objectIDAttributes {
                    if case .objectID(let id)? = object.storage.attributes[index], let permanent = mapping[id] {
                        object.storage.attributes[index] = .objectID(permanent)
                    }
                }
            }
        }
    }

    /// Throws away unsaved changes: inserted objects leave the context, changed and deleted
    /// ones get their saved values back.
    func rollback() {
        unprocessed = UnprocessedChanges()
        permanentIDsObtained.removeAll()
        finishMergedDeletes()
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
        unprocessed = UnprocessedChanges()
        permanentIDsObtained.removeAll()
        mergedDeletes = [:]
        for object in Array(registered.values) + inserted.values { unregister(object) }
        registered.removeAll()
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        propagatedDeletes.removeAll()
        unpinGeneration()
    }

    /// Moves to the latest generation and reloads `object` from it, as Core Data's
    /// `refresh(_:mergeChanges:)`: with `mergeChanges`, an object with unsaved changes keeps them
    /// on top of the latest saved values (and the next save will not conflict on them), and one
    /// without becomes a fault, which loads the latest values when next read; without
    /// `mergeChanges`, it becomes a fault and its changes are lost. `willTurnIntoFault()` and
    /// `didTurnIntoFault()` bracket the change.
    func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.graph === self else { return }
        moveToLatest()
        guard !object.isInserted else { return }
        if mergeChanges, !object.isFault, object.isUpdated || object.isDeleted, let latest = storedRow(for: object.objectID) {
            keepChanges(of: object, onto: latest)
            return
        }
        guard !object.isFault else {
            object.forgetCachedRow()  // it reads the latest values when it fires
            return
        }
        turnIntoFault(object)
    }

    /// A registered object refetched by a request that refreshes refetched objects: its
    /// unsaved changes go on top of the store's row, or, unchanged, it becomes a fault that
    /// holds the fetched row.
    func refresh(_ object: ManagedObject, toFetched stored: StoredRow, at time: UInt64) {
        if object.isUpdated || object.isDeleted {
            // The fetch matched a changed object on its pending values: the store's are read.
            if let latest = storedRow(for: object.objectID) { keepChanges(of: object, onto: latest) }
            return
        }
        turnIntoFault(object)
        object.cache(stored, at: time)
    }

    /// A changed object's unsaved changes replayed onto `latest`, its new snapshot (the next
    /// save will not conflict on them).
    private func keepChanges(of object: ManagedObject, onto latest: Row) {
        rebasedSinceSave = true
        let mine = object.storage
        object.storage = merge(mine, onto: latest, since: object.snapshot ?? latest, contextWins: true)
        object.snapshot = latest
        reconcileInverses(of: object, from: latest)
        reconcileInverses(of: object, from: mine)
        if object.isDeleted { applyDeleteRules(of: object) }
    }

    /// Lets go of an unchanged object's values: it reads them again when it fires.
    private func turnIntoFault(_ object: ManagedObject) {
        object.willTurnIntoFault()
        updated[ObjectIdentifier(object)] = nil
        object.isUpdated = false
        object.storage = Row(emptyFor: object.layout)
        object.snapshot = nil
        object.isFault = true
        object.didTurnIntoFault()
    }
}

extension ObjectGraph {
    /// The context's changes since `old` replayed onto `store`, property by property. A to-many
    /// relationship both sides changed gets both sides' additions and removals; objects that are
    /// no longer there (deleted by the other save) are left out of every relationship.
    ///
    /// Attributes count as changed against `attributesSince` when given: the values read before
    /// a save that has rebased already (the relationships' rebase is in `old`).
    func merge(_ mine: Row, onto store: Row, since old: Row, attributesSince: Row? = nil, contextWins: Bool) -> Row {
        var merged = store
        let read = attributesSince ?? old
        for index in mine.attributes.indices {
            let changed = mine.attributes[index] != read.attributes[index]
            let theirs = store.attributes[index] != read.attributes[index]
            if changed && (contextWins || !theirs) { merged.attributes[index] = mine.attributes[index] }
        }
        for index in mine.relationships.indices where mine.relationships[index] != old.relationships[index] {
            merged.relationships[index] = mergedTargets(
                mine.relationships[index], onto: store.relationships[index], since: old.relationships[index], contextWins: contextWins)
        }
        return withoutMissingTargets(merged)
    }

    /// One relationship's targets, the context's changes since `old` replayed onto `store`'s:
    /// to-many relationships take both sides' additions and removals, to-one ones the
    /// context's value when it wins or the store's did not change.
    func mergedTargets(
        _ mine: RelationshipTargets, onto store: RelationshipTargets, since old: RelationshipTargets, contextWins: Bool
    ) -> RelationshipTargets {
        guard mine != old else { return store }
        switch (mine.read, old.read, store.read) {
        case (.many(let ours), .many(let before), .many(var theirs)):
            for added in ours where !before.contains(added) { theirs.append(added) }
            for removed in before where !ours.contains(removed) { theirs.remove(removed) }
            return .toMany(theirs)
        default:
            return contextWins || store == old ? mine : store
        }
    }

    /// After a merge, the objects that the store had in a relationship and the merge took out
    /// (or the other way round) get their inverse relationship fixed, as setting the
    /// relationship would have: both sides of every relationship keep agreeing.
    func reconcileInverses(of object: ManagedObject, from store: Row) {
        for index in object.storage.relationships.indices {
            guard let inverse = object.layout.inverseSlots[index] else { continue }
            let now = Set(object.storage.relationships[index].objectIDs)
            let before = Set(store.relationships[index].objectIDs)
            for removed in before.subtracting(now) where storedRow(for: removed) != nil || registered[removed] != nil {
                remove(object.objectID, from: self.object(for: removed), at: inverse)
            }
            for added in now.subtracting(before) {
                let target = self.object(for: added)
                catchUp(target, at: inverse)
                switch target.storage.relationships[inverse].read {
                case .one(let previous):
                    guard previous != object.objectID else { continue }
                    if let previous { remove(added, from: self.object(for: previous), at: index) }
                    target.storage.relationships[inverse] = .toOne(object.objectID)
                    didChange(target)
                case .many(var ids):
                    guard !ids.contains(object.objectID) else { continue }
                    target.storage.relationships[inverse] = .toOne(nil)
                    ids.append(object.objectID)
                    target.storage.relationships[inverse] = .toMany(ids)
                    didChange(target)
                }
            }
        }
    }

    /// The row without relationship targets that are neither in the generation nor new in
    /// this context.
    func withoutMissingTargets(_ row: Row) -> Row {
        var row = row
        func exists(_ id: ManagedObjectID) -> Bool {
            id.isTemporaryID || storedRow(for: id) != nil || registered[id]?.isInserted == true
        }
        for index in row.relationships.indices {
            switch row.relationships[index].read {
            case .one(let id?) where !exists(id): row.relationships[index] = .toOne(nil)
            case .many(let ids) where !ids.allSatisfy(exists): row.relationships[index] = .toMany(ids.filter(exists))
            default: break
            }
        }
        return row
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
