import Dispatch

/// The objects a context's fetch sees: its pinned generation, with its own unsaved changes on
/// top when the request includes pending changes.
struct ContextObjectSource: ObjectSource {
    let graph: ObjectGraph
    let includesPendingChanges: Bool

    func object(for id: ManagedObjectID) -> ObjectRef? {
        if includesPendingChanges, let object = graph.registered[id], !object.isFault {
            if object.isDeleted { return nil }
            return ObjectRef(id: id, row: object.storage, layout: object.layout)
        }
        guard let row = graph.storedRow(for: id), let layout = graph.model.layout(for: id.entityName) else { return nil }
        return ObjectRef(id: id, row: row, layout: layout)
    }

    /// The context's object for `ref`; one it has not registered is registered now, as a fault
    /// holding the row being evaluated (firing it to compute a key reads nothing more).
    func managedObject(for ref: ObjectRef) -> ManagedObject? {
        if let object = graph.registered[ref.id] { return object }
        guard !ref.id.isTemporaryID else { return nil }
        let object = graph.register(id: ref.id, stored: nil, layout: ref.layout)
        object.cache(ref.stored, at: DispatchTime.now().uptimeNanoseconds)
        return object
    }
}
