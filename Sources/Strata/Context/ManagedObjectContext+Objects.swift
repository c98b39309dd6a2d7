import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Inserts a new object of the named entity, an instance of the entity's class.
    ///
    /// - Throws: ``PersistenceError`` with code `.unknownEntity` for an entity the model does
    ///   not have, or an abstract one.
    @discardableResult
    public func insertNewObject(forEntityName entityName: String) throws -> ManagedObject {
        try graph.insertNewObject(entityName: entityName)
    }

    /// Inserts an object made without a context (``ManagedObject/init(entity:insertInto:)`` with
    /// `nil`): Core Data's `insert(_:)`. The object gets a temporary ID, is saved by the next
    /// save, and leaves the context again if the insert is rolled back. Its values stay as
    /// they are, and its ``ManagedObject/awakeFromInsert()`` does not run again. The objects of
    /// no context it was related to are inserted with it (its relationships would point at
    /// nothing otherwise), and the inverse relationships are set on both sides.
    ///
    /// An object already in this context is left as it is. Inserting an object of another
    /// context, one a context saved then let go, or one whose entity the context's model does not
    /// have stops the program: those are programmer errors, which Core Data raises.
    public func insert(_ object: ManagedObject) {
        graph.insert(object)
    }

    /// Marks an object deleted. Its delete rules run when the context processes pending
    /// changes (at the latest when it saves); the store forgets it when the context saves.
    public func delete(_ object: ManagedObject) {
        graph.delete(object)
    }

    /// The object for `objectID`: the one the context holds, or a fault that loads its values
    /// on first use. Use ``existingObject(with:)`` to find out whether the object exists.
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        graph.object(for: objectID)
    }

    /// The object for `objectID`, with its values loaded.
    ///
    /// - Throws: ``PersistenceError`` with code `.objectNotFound` when the store has no such
    ///   object (deleted, or never saved) and the context does not hold it.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        if let object = graph.registered[objectID], !object.isFault { return object }
        graph.beginRead()
        defer { graph.endRead() }
        guard graph.model.layout(for: objectID.entityName) != nil, graph.storedRow(for: objectID) != nil else {
            throw PersistenceError(.objectNotFound, objectIDs: [objectID], "no object with the ID \(objectID) exists")
        }
        let object = graph.object(for: objectID)
        object.willAccessValues()
        return object
    }

    /// The object for `objectID` if the context holds it, without loading anything.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        graph.registered[objectID]
    }

    /// Processes the inserts, changes and deletes made since the last call, as Core Data's
    /// `processPendingChanges()`: runs the delete rules of deleted objects (which update their
    /// inverses and cascade), then posts one ``ObjectsDidChange`` with the objects inserted,
    /// updated and deleted since the last one (none when nothing changed). Like Core Data, the
    /// context calls it at the end of each ``perform(_:)`` block, and before it saves or fetches.
    /// With an ``undoManager``, what changed since the last call becomes one undo group.
    public func processPendingChanges() {
        graph.processPendingChangesAndTell()
    }

    /// Commits the context's changes: runs delete rules, validates every changed object, gives
    /// new objects permanent IDs and writes through the coordinator. Synchronous, as in Core
    /// Data: nothing else runs on the context while it saves.
    ///
    /// - Throws: ``ValidationError`` for objects that break their entity's rules (all of them,
    ///   in one error); ``PersistenceError`` with code `.conflict` when another save changed
    ///   or deleted the same objects since this context read them. Nothing is saved when it
    ///   throws, and the context keeps its changes.
    public func save() throws {
        // An unpinned context moves to the latest generation at its next read: between reads
        // it holds none, so that a store's snapshot can let go of its transaction (Core Data's
        // unpinned contexts hold no read transaction between fetches).
        defer { graph.endRead() }
        if graph.hasChanges { NotificationCenter.default.post(name: Self.willSaveObjectsNotification, object: self) }
        // What changed is announced before the save, as Core Data processes pending changes first.
        processPendingChanges()
        // Deleted objects leave the context with the save: the notification names them all the same.
        let deleted = Array(graph.deleted.values)
        guard let saved = try graph.save() else { return }
        // New objects have permanent IDs now: results that order ties by ID place them again.
        graph.tellObservers(objects: saved.insertedObjectIDs.compactMap { graph.registered[$0] })
        ownSaves.send(saved)
        let objects = ObjectsByChange(
            inserted: Set(saved.insertedObjectIDs.compactMap { graph.registered[$0] }),
            updated: Set(saved.updatedObjectIDs.compactMap { graph.registered[$0] }),
            deleted: Set(deleted.filter { saved.deletedObjectIDs.contains($0.objectID) }))
        var notification = saved.notification
        var info = notification.userInfo ?? [:]
        objects.add(to: &info)
        notification.userInfo = info
        NotificationCenter.default.post(notification)
    }

    /// Gives new objects their permanent IDs now, before the save: Core Data's
    /// `obtainPermanentIDs(for:)`, for handing a new object's ID to another context or keeping
    /// its URI before saving. The save keeps those IDs. Objects that have permanent IDs already,
    /// or are not this context's new objects, are left as they are.
    ///
    /// - Throws: ``PersistenceError`` with code `.noPersistentStore` when the coordinator has no
    ///   writable store to give them IDs in (nothing is changed then).
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        var seen: Set<ObjectIdentifier> = []
        let new = objects.filter { $0.graph === graph && $0.isInserted && $0.objectID.isTemporaryID && seen.insert(ObjectIdentifier($0)).inserted }
        try graph.assignPermanentIDs(to: new)
        graph.permanentIDsObtained.formUnion(new.map(ObjectIdentifier.init))
    }

    /// Throws away every unsaved change.
    public func rollback() {
        graph.rollback()
        graph.forgetUndo()
        graph.tellObserversOfReload()
    }

    /// Lets every object go (objects the caller still holds no longer belong to the context)
    /// and moves the context to the coordinator's latest generation.
    public func reset() {
        graph.reset()
        graph.forgetUndo()
        graph.tellObserversOfReload()
    }

    /// Reloads an object from the latest generation. With `mergeChanges`, its unsaved changes
    /// stay on top of the latest saved values; without, they are lost and it becomes a fault.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        graph.refresh(object, mergeChanges: mergeChanges)
        graph.tellObservers(objects: [object])  // its values may have moved it in a controller's result
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        for object in Array(graph.registered.values) {
            graph.refresh(object, mergeChanges: true)
        }
        graph.tellObservers(objects: Array(graph.registered.values))
    }
}

extension ManagedObject {
    /// Inserts a new object of the entity whose class is this class.
    ///
    /// - Throws: ``PersistenceError`` with code `.unknownEntity` when no entity, or more than
    ///   one, has this class: use ``ManagedObjectContext/insertNewObject(forEntityName:)`` then.
    public convenience init(context: isolated ManagedObjectContext) throws {
        let candidates = context.graph.model.layouts(forClass: Self.self)
        guard candidates.count == 1, let layout = candidates.first else {
            throw PersistenceError(
                .unknownEntity,
                "\(candidates.isEmpty ? "no entity" : "more than one entity") of the model has the class \(Self.self)")
        }
        self.init(ManagedObjectCreation(layout: layout, objectID: .temporary(in: layout.temporaryIDSpace), graph: context.graph, stored: nil))
        context.graph.didInsert(self)
    }
}
