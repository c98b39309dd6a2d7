import OrderedCollections

/// Undo, as a Core Data context registers it with its undo manager: every change made in the
/// context (values, relationships on both sides, inserts, deletes, what delete rules do) is
/// registered, one group per processing of pending changes, and undoing a group puts every
/// object it touched back as it was before — redoing, as it was after.
///
/// The graph keeps, for each object changed since the last group, its state before the first
/// change (``willChange(_:)``); ``registerUndoGroup()`` pairs those with the states after and
/// registers one action that restores the one and registers restoring the other.
extension ObjectGraph {
    /// An object's place and values at one moment.
    struct UndoState {
        let object: ManagedObject
        /// Its values; `nil` when it was not in the context (inserted later).
        let values: Row?
        let isInserted: Bool
        let isDeleted: Bool
    }

    /// Records `object`'s state before its first change since the last undo group, and
    /// since the last ``ObjectsDidChange``.
    func willChange(_ object: ManagedObject) {
        unprocessed.willChange(object)
        guard let undoManager, undoManager.isUndoRegistrationEnabled, !isApplyingUndo else { return }
        let key = ObjectIdentifier(object)
        guard undoJournal[key] == nil else { return }
        undoJournal[key] = UndoState(object: object, values: object.storage, isInserted: object.isInserted, isDeleted: object.isDeleted)
    }

    /// Records that `object`, about to be inserted, was not in the context.
    func willInsert(_ object: ManagedObject) {
        guard let undoManager, undoManager.isUndoRegistrationEnabled, !isApplyingUndo else { return }
        let key = ObjectIdentifier(object)
        guard undoJournal[key] == nil else { return }
        undoJournal[key] = UndoState(object: object, values: nil, isInserted: false, isDeleted: false)
    }

    /// Registers what changed since the last call as one undo group (nested in the group the
    /// caller has open, if any).
    func registerUndoGroup() {
        guard let undoManager, !undoJournal.isEmpty else {
            undoJournal = [:]
            return
        }
        let before = Array(undoJournal.values)
        undoJournal = [:]
        let after = before.map { state(of: $0.object) }
        undoManager.beginUndoGrouping()
        undoManager.registerUndo(withTarget: self) { graph in graph.restore(before, opposite: after) }
        undoManager.endUndoGrouping()
    }

    /// Forgets what was recorded: after a rollback or a reset, as Core Data empties the undo
    /// manager then.
    func forgetUndo() {
        undoJournal = [:]
        undoManager?.removeAllActions()
    }

    private func state(of object: ManagedObject) -> UndoState {
        let present = object.isInserted || registered[object.objectID] === object
        return UndoState(object: object, values: present ? object.storage : nil, isInserted: object.isInserted, isDeleted: object.isDeleted)
    }

    /// Puts every object back in its state in `states`, and registers putting them back in
    /// `opposite` (which, while undoing, is the redo).
    private func restore(_ states: [UndoState], opposite: [UndoState]) {
        isApplyingUndo = true
        for state in states { apply(state) }
        isApplyingUndo = false
        undoManager?.registerUndo(withTarget: self) { graph in graph.restore(opposite, opposite: states) }
    }

    private func apply(_ state: UndoState) {
        let object = state.object
        let key = ObjectIdentifier(object)
        guard object.graph === self else { return }  // reset or rolled back since: nothing to restore
        guard let values = state.values else {
            if object.objectID.isTemporaryID {
                // An insert taken back: the object leaves the context.
                unprocessed.delete(object)
                inserted[key] = nil
                updated[key] = nil
                deleted[key] = nil
                propagatedDeletes.remove(key)
                if registered[object.objectID] === object { registered[object.objectID] = nil }
                object.isInserted = false
                object.isDeleted = false
                object.isUpdated = false
            } else if !object.isDeleted {
                // Saved since it was inserted: taking the insert back deletes it.
                markDeleted(object)
            }
            return
        }
        registered[object.objectID] = object
        object.storage = values
        object.isInserted = state.isInserted && object.objectID.isTemporaryID
        if object.isInserted {
            inserted[key] = object
            unprocessed.insert(object)
        }
        if state.isDeleted {
            if !object.isDeleted { markDeleted(object) }
        } else if object.isDeleted {
            object.isDeleted = false
            deleted[key] = nil
            propagatedDeletes.remove(key)
            unprocessed.update(object)
        }
        let changed = !object.isInserted && !object.isDeleted
            && object.snapshot.map { $0.attributes != values.attributes || $0.relationships != values.relationships } ?? false
        object.isUpdated = changed
        updated[key] = changed ? object : nil
        if !object.isDeleted { unprocessed.update(object) }
    }

    /// Marks an object deleted as the state it is restored to says, its delete rules counted
    /// as run (their effects are restored with the objects they touched).
    private func markDeleted(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        object.isDeleted = true
        deleted[key] = object
        propagatedDeletes.insert(key)
        unprocessed.delete(object)
    }
}
