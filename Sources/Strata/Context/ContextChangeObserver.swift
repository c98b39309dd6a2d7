import Foundation

/// Something in a context that keeps a result current — a ``FetchedResultsController``, an
/// observation: told of every change the context announces, synchronously, on the context's
/// executor, before the change's ``ObjectsDidChange`` goes out.
protocol ContextChangeObserver: AnyObject {
    /// Objects changed: `objects` are the context's own (inserted, updated, deleted — still in
    /// hand — refreshed, or given permanent IDs by a save); `elsewhere` are objects a merge says
    /// another save inserted or updated that the context does not hold.
    func contextDidChange(objects: [ManagedObject], elsewhere: Set<ManagedObjectID>, in graph: ObjectGraph)
    /// Everything may have changed (a reset, a rollback): read the result again.
    func contextDidReload(in graph: ObjectGraph)
}

/// A weak reference to an observer: a context never keeps its observers alive.
struct WeakContextChangeObserver {
    weak var observer: (any ContextChangeObserver)?
}

extension ObjectGraph {
    /// Adds an observer, once however often it is added.
    func addChangeObserver(_ observer: any ContextChangeObserver) {
        changeObservers.removeAll { $0.observer == nil || $0.observer === observer }
        changeObservers.append(WeakContextChangeObserver(observer: observer))
    }

    func removeChangeObserver(_ observer: any ContextChangeObserver) {
        changeObservers.removeAll { $0.observer == nil || $0.observer === observer }
    }

    /// Tells every observer alive of a change. `objects` is made only when someone observes:
    /// the end of every `perform` and every save ask, and a save of a million objects should
    /// not list them for nobody.
    func tellObservers(objects: @autoclosure () -> [ManagedObject], elsewhere: Set<ManagedObjectID> = []) {
        guard !changeObservers.isEmpty else { return }
        let objects = objects()
        guard !objects.isEmpty || !elsewhere.isEmpty else { return }
        for entry in changeObservers { entry.observer?.contextDidChange(objects: objects, elsewhere: elsewhere, in: self) }
    }

    /// ``ManagedObjectContext/processPendingChanges()``: delete rules, an undo group, then one
    /// ``ObjectsDidChange`` (observers first).
    func processPendingChangesAndTell() {
        processPendingChanges()
        registerUndoGroup()
        guard !unprocessed.isEmpty else { return }
        tellObservers(objects: unprocessed.objects)
        let objects = unprocessed.objectsByChange
        // While the notice goes out, its objects' values before it stay readable.
        valuesBeforeAnnouncedChange = unprocessed.valuesBefore
        defer { valuesBeforeAnnouncedChange = [:] }
        let change = unprocessed.take()
        context?.changes.send(change)
        if let context { NotificationCenter.default.post(objects.notification(of: change, postedBy: context)) }
    }

    /// `object`'s values before the changes of the current event: since the last notice, or,
    /// while a notice goes out and the object has not changed since, before that notice's.
    func valuesBeforeCurrentEvent(of object: ManagedObject) -> Row? {
        let key = ObjectIdentifier(object)
        return unprocessed.valuesBefore[key] ?? valuesBeforeAnnouncedChange[key]
    }

    func tellObserversOfReload() {
        for entry in changeObservers { entry.observer?.contextDidReload(in: self) }
    }
}
