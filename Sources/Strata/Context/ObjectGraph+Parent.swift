import Dispatch
import OrderedCollections

extension ObjectGraph {
    /// Moves the context to the latest state it can read: its parent's for a child, the
    /// coordinator's latest generation otherwise.
    func moveToLatest() {
        if parent != nil {
            unpinGeneration()
        } else {
            generation = coordinator.latestGeneration()
        }
    }

    /// A child's save: its changes become the parent's unsaved changes, synchronously on the
    /// parent's executor; the parent's save takes them to the store. Nothing reaches the
    /// coordinator here.
    func pushChanges(to parent: ManagedObjectContext) throws {
        for object in Array(inserted.values) + updated.values + deleted.values { object.willSave() }
        processPendingChanges()
        let insertedRows = inserted.values.filter { !$0.isDeleted }.map { (id: $0.objectID, row: $0.storage) }
        let updatedRows = updated.values.filter { !$0.isDeleted && !$0.isInserted }.map { (id: $0.objectID, row: $0.storage) }
        let deletedIDs = deleted.values.filter { !$0.isInserted }.map(\.objectID)
        parent.performAndWait { parent in
            parent.graph.applyChildChanges(inserted: insertedRows, updated: updatedRows, deleted: deletedIDs)
        }
        // Core Data processes a main-queue context's pending changes at the end of the main run
        // loop's turn, so its ObjectsDidChange (and its fetched results controllers) follow a
        // child's save unasked; the main queue's next turn is the nearest here. A private-queue
        // parent processes them at the end of its next `perform`, as Core Data's does.
        if parent.concurrencyType == .mainQueue {
            DispatchQueue.main.async { parent.assumeIsolated { $0.processPendingChanges() } }
        }
        for (id, row) in insertedRows + updatedRows {
            parentRows[id] = .some(row)
            registered[id]?.snapshot = row
        }
        for id in deletedIDs { parentRows[id] = .some(nil) }
        finishSave(of: inserted.values.filter { !$0.isDeleted } + updated.values.filter { !$0.isDeleted })
    }

    /// A child's saved changes, applied as this context's own unsaved changes.
    func applyChildChanges(
        inserted insertedRows: [(id: ManagedObjectID, row: Row)], updated updatedRows: [(id: ManagedObjectID, row: Row)],
        deleted deletedIDs: [ManagedObjectID]
    ) {
        for (id, row) in insertedRows {
            if let existing = registered[id] {
                existing.storage = row
                continue
            }
            guard let layout = model.layout(for: id.entityName) else { continue }
            // Made here without awakeFromInsert: the child's object already woke.
            let object = layout.entity.managedObjectClass.init(
                ManagedObjectCreation(layout: layout, objectID: id, graph: self, stored: nil))
            object.storage = row
            object.isFault = false
            object.isInserted = true
            registered[id] = object
            inserted[ObjectIdentifier(object)] = object
            // The child obtained its permanent ID: this context's save keeps it too.
            if !id.isTemporaryID { permanentIDsObtained.insert(ObjectIdentifier(object)) }
            unprocessed.insert(object)
        }
        for (id, row) in updatedRows {
            let object = self.object(for: id)
            object.willAccessValues()
            var updatedRow = row
            updatedRow.version = object.storage.version
            object.storage = updatedRow
            didChange(object)
        }
        for id in deletedIDs {
            delete(object(for: id))
        }
        // The child ran the delete rules already.
        propagatedDeletes.formUnion(deleted.values.map(ObjectIdentifier.init))
    }
}
