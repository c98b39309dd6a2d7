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
}
