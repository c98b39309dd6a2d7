import Dispatch
import Logging
import OrderedCollections

/// The state of one context: its registered objects, what changed since it last saved, and the
/// generation it reads. Not `Sendable`: the context actor owns it, and its objects reach it
/// only from that actor's isolation.
final class ObjectGraph {
    unowned(safe) var context: ManagedObjectContext?
    let coordinator: PersistentStoreCoordinator
    let model: ManagedObjectModel
    /// The generation fetches and faults read. Each read (a fetch, a count, a fault, an object
    /// lookup: ``beginRead()``) takes the latest, as a Core Data context whose query generation is
    /// `nil` does; a context pinned with `setQueryGenerationFrom(.current)` keeps the one it took
    /// until it saves, refreshes, resets or is unpinned. Within one read it never changes, so a
    /// fetch never sees half of another context's save.
    var generation: Generation {
        get {
            if let pinned { return pinned.generation }
            let latest = pinParent() ?? coordinator.latestGeneration()
            pinned = GenerationHold(latest)
            return latest
        }
        set { pinned = GenerationHold(newValue) }
    }
    /// The generation the context holds, for one read or pinned: its stores' snapshots know
    /// that a context holds it (see ``IncrementalStoreSnapshot/contextsStoppedHolding()``).
    private var pinned: GenerationHold?
    /// Whether the context keeps one query generation across reads (Core Data's
    /// `setQueryGenerationFrom(.current)`), rather than taking the latest at each.
    var pinsQueryGeneration = false
    /// For a child context: its parent context.
    let parent: ManagedObjectContext?
    /// For a child context: the parent's unsaved objects when the child pinned its generation
    /// (`nil` for the ones the parent deleted), read on top of the generation.
    var parentRows: [ManagedObjectID: Row?] = [:]
    let logger = Logger(label: "strata.context")

    /// One object per ID, as long as the context keeps it.
    var registered: [ManagedObjectID: ManagedObject] = [:]
    var inserted: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
    var updated: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
    var deleted: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
    /// Deleted objects whose delete rules have run.
    var propagatedDeletes: Set<ObjectIdentifier> = []
    /// Objects another save deleted, marked deleted here by a merge: processing pending changes
    /// takes them out of this context's objects and lets them go (the store has them gone).
    var mergedDeletes: [ObjectIdentifier: ManagedObject] = [:]
    /// What changed since the context last processed its pending changes and said so.
    var unprocessed = UnprocessedChanges()
    /// The values before the change an ``ObjectsDidChange`` being posted announces, by object:
    /// what its observers read through ``ManagedObject/changedValuesForCurrentEvent()``.
    var valuesBeforeAnnouncedChange: [ObjectIdentifier: Row] = [:]
    /// Fetched results controllers and observations of this context, told of its changes
    /// (weakly held).
    var changeObservers: [WeakContextChangeObserver] = []
    /// Observations of fetches (``ManagedObjectContext/changes(of:sectionNameKeyPath:)``), held
    /// here until their observer stops.
    var observations: [Int: AnyObject] = [:]
    var nextObservationKey = 0
    /// How many rows the last fetch evaluated its predicate on: what an index saves.
    var rowsConsidered = 0
    /// Asynchronous fetches executed and not yet run (``ManagedObjectContext/execute(_:)``).
    var pendingAsynchronousFetches: [any PendingAsynchronousFetch] = []
    /// The context's settings, shared with it (``ContextSettings``).
    let settings: ContextSettings
    var mergePolicy: MergePolicy { settings[\.mergePolicy] }
    /// See ``ManagedObjectContext/stalenessInterval``.
    var stalenessInterval: Double { settings[\.stalenessInterval] }
    /// See ``ManagedObjectContext/undoManager`` (`ObjectGraph+Undo.swift`).
    var undoManager: UndoManager?
    /// Each object changed since the last undo group, as it was before (``willChange(_:)``).
    var undoJournal: [ObjectIdentifier: UndoState] = [:]
    /// Whether an undo or redo is restoring objects: what it changes is not recorded again.
    var isApplyingUndo = false
    var transactionAuthor: String? { settings[\.transactionAuthor] }
    var name: String? { settings[\.name] }
    /// New objects whose permanent IDs were asked for before the save
    /// (``ManagedObjectContext/obtainPermanentIDs(for:)``): the save keeps them.
    var permanentIDsObtained: Set<ObjectIdentifier> = []
    /// The keys and slots of the property wrappers its objects' classes declare, found once.
    var wrapperSlots = WrapperSlotCache()
    /// Objects the store deleted that a merge policy writes back: saved as inserts.
    var resurrected: Set<ObjectIdentifier> = []
    /// Whether objects were rebased on newer values since the last save (a refresh that kept
    /// changes, a merge policy's resolution, an upsert): the next save first makes sure
    /// both sides of every link it writes agree (see `repairInverses()`).
    var rebasedSinceSave = false
    /// Each entity's derived attributes, and the relationship slots through which others' read
    /// it, worked out once (`ObjectGraph+Derivation.swift`).
    var derivationCache: [String: [Derivation]] = [:]
    private(set) lazy var modelHasDerivedAttributes = model.hasDerivedAttributes
    var derivationReaderCache: [String: [Int]] = [:]
    /// Store identifier → the incremental store it is (`nil`: another kind), looked up once.
    var incrementalStores: [String: IncrementalStore?] = [:]

    init(coordinator: PersistentStoreCoordinator, parent: ManagedObjectContext? = nil, settings: ContextSettings = ContextSettings()) {
        self.coordinator = coordinator
        self.parent = parent
        self.settings = settings
        model = coordinator.managedObjectModel
    }

    /// The stored row of an object as this context reads it: for a child, the parent's unsaved
    /// version first.
    func storedRow(for id: ManagedObjectID) -> Row? {
        let generation = self.generation  // pins first: a child's parent rows come with its generation
        if let overlay = parentRows[id] { return overlay }
        return generation.row(for: id)
    }

    /// For a child context: takes the parent's generation and unsaved objects, synchronously on
    /// the parent's executor.
    private func pinParent() -> Generation? {
        guard let parent else { return nil }
        let (generation, rows) = parent.performAndWait { parent in
            (parent.graph.generation, parent.graph.pendingRows())
        }
        parentRows = rows
        return generation
    }

    /// The rows of this context's unsaved objects (`nil` for deleted ones): what a child reads
    /// on top of the generation.
    func pendingRows() -> [ManagedObjectID: Row?] {
        var rows = parentRows
        for object in inserted.values.elements + updated.values.elements {
            rows[object.objectID] = .some(object.isDeleted ? nil : object.storage)
        }
        for object in deleted.values { rows[object.objectID] = .some(nil) }
        return rows
    }

    var hasChanges: Bool {
        !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty
    }

    // MARK: Objects

    /// The registered object for `id`, or a new fault for it.
    func object(for id: ManagedObjectID) -> ManagedObject {
        if let object = registered[id] { return object }
        return register(id: id, row: nil)
    }

    /// Registers a new object for `id`, with its values when `row` is given (a fault otherwise).
    func register(id: ManagedObjectID, row: Row?) -> ManagedObject {
        guard let layout = model.layout(for: id.entityName) else {
            preconditionFailure("the object ID \(id) names an entity the context's model does not have")
        }
        return register(id: id, row: row, layout: layout)
    }

    func register(id: ManagedObjectID, row: Row?, layout: EntityLayout, announcing: Bool = true) -> ManagedObject {
        register(id: id, stored: row.map(StoredRow.row), layout: layout, announcing: announcing)
    }

    /// ``register(id:row:)`` for a caller that has the entity's layout at hand (a fetch), and
    /// the values where they are stored. With `announcing` false, the caller tells the store
    /// itself, for many objects at once.
    func register(id: ManagedObjectID, stored row: StoredRow?, layout: EntityLayout, announcing: Bool = true) -> ManagedObject {
        let object = layout.entity.managedObjectClass.init(
            ManagedObjectCreation(layout: layout, objectID: id, graph: self, stored: row))
        // Without a row it is a fault, also for a temporary ID (a child reading an object its
        // parent inserted).
        if row == nil { object.isFault = true }
        registered[id] = object
        if announcing { announce(id, registered: true) }
        if row != nil { object.awakeFromFetch() }
        return object
    }

    /// Tells an object's incremental store that this context took it up or let it go (Core
    /// Data's `managedObjectContextDidRegisterObjects(with:)` and its counterpart).
    func announce(_ id: ManagedObjectID, registered: Bool) {
        announce([id], registered: registered)
    }

    /// ``announce(_:registered:)`` for many objects: one call per store.
    func announce(_ ids: [ManagedObjectID], registered: Bool) {
        for (storeID, ids) in ids.groupedByStore() {
            let store: IncrementalStore?
            if let known = incrementalStores[storeID] {
                store = known
            } else {
                store = coordinator.persistentStores.first { $0.identifier == storeID } as? IncrementalStore
                incrementalStores[storeID] = store
            }
            guard let store else { continue }
            if registered {
                store.managedObjectContextDidRegisterObjects(with: ids)
            } else {
                store.managedObjectContextDidUnregisterObjects(with: ids)
            }
        }
    }

    /// Loads a fault's values from the pinned generation.
    ///
    /// A fault the store cannot fulfil (the object is gone, or a damaged store cannot give its
    /// row) is handled as Core Data's `shouldDeleteInaccessibleFaults`, its default, handles it:
    /// the error is logged and the object reads as its entity's default values, with the zero
    /// value of its type where the model gives none (so that a typed non-optional property
    /// reads `""` or `0` instead of trapping). It has no stored version, so a save that changes
    /// it meets a conflict.
    func fulfillFault(_ object: ManagedObject) {
        if fireFromCache(object) { return }
        if let batch = object.faultBatch {
            readBatch(batch)
            if object.cachedAt != 0 {  // just read: as fresh as the store's latest, whatever the staleness interval
                object.didFireFromCache()
                object.awakeFromFetch()
                return
            }
        }
        guard let row = storedRow(for: object.objectID) else {
            // Debug, not error: another context deleting an object this one still holds is
            // ordinary; a store that failed to read says so itself, at error level.
            logger.debug("cannot fulfil a fault: the store does not give the object", metadata: ["object": "\(object.objectID)"])
            object.storage = Row(inaccessibleFor: object.layout)
            object.isFault = false
            return
        }
        object.storage = row
        object.snapshot = row
        object.isFault = false
        object.awakeFromFetch()
    }

    /// Fires a fault from the row a fetch left in it (Core Data's row cache), unless it holds
    /// none or the row is older than ``stalenessInterval`` (when that is not negative); returns
    /// whether it did. A stale row is let go, so that the caller reads the store.
    func fireFromCache(_ object: ManagedObject) -> Bool {
        guard object.cachedAt != 0 else { return false }
        if stalenessInterval >= 0 {
            let age = Double(DispatchTime.now().uptimeNanoseconds &- object.cachedAt) / 1e9
            if age > stalenessInterval {
                object.forgetCachedRow()
                return false
            }
        }
        object.didFireFromCache()
        object.awakeFromFetch()
        return true
    }

    func insertNewObject(entityName: String) throws -> ManagedObject {
        guard let layout = model.layout(for: entityName) else {
            throw PersistenceError(.unknownEntity, "the model has no entity named '\(entityName)'")
        }
        guard !layout.entity.isAbstract else {
            throw PersistenceError(.unknownEntity, "the entity '\(entityName)' is abstract: insert one of its subentities")
        }
        let object = layout.entity.managedObjectClass.init(
            ManagedObjectCreation(layout: layout, objectID: .temporary(in: layout.temporaryIDSpace), graph: self, stored: nil))
        didInsert(object)
        return object
    }

    /// Registers a newly made object as inserted, and awakes it (unless it awoke when it was
    /// made without a context).
    func didInsert(_ object: ManagedObject, awakes: Bool = true) {
        willInsert(object)
        registered[object.objectID] = object
        object.isInserted = true
        inserted[ObjectIdentifier(object)] = object
        unprocessed.insert(object)
        if awakes { object.awakeFromInsert() }
    }

    /// Inserts an object made without a context (Core Data's `insert(_:)`): it joins this
    /// context with a temporary ID of the context's model and its values as they are. An
    /// object already in this context is left as it is.
    func insert(_ object: ManagedObject) {
        if object.graph === self { return }
        precondition(object.graph == nil, "\(object) belongs to another context: insert an object made without one")
        precondition(object.objectID.isTemporaryID, "\(object) was saved by a context that let it go: fetch it again")
        let entityName = object.entity.name
        guard let layout = model.layout(for: entityName),
            layout === object.layout
                || (layout.attributes == object.layout.attributes && layout.relationships == object.layout.relationships)
        else {
            preconditionFailure("the context's model has no entity '\(entityName)' like the object's: make it with this model's entity")
        }
        object.objectID = .temporary(in: layout.temporaryIDSpace)
        object.graph = self
        didInsert(object, awakes: false)
        // What it was related to while of no context joins too (it would point at nothing
        // otherwise), and the relationships become IDs here, their inverses kept.
        let links = object.detachedTargets
        object.detachedTargets = [:]
        for (index, targets) in links.sorted(by: { $0.key < $1.key }) {
            for target in targets where target.graph == nil { insert(target) }
            precondition(targets.allSatisfy { $0.graph === self }, "\(object) was related to an object another context took meanwhile")
            object.storage.relationships[index] = object.layout.relationships[index].isToMany ? .toMany([]) : .toOne(nil)
            setTargets(OrderedSet(targets.map(\.objectID)), of: object, at: index)
        }
    }

    /// Records that an object's values changed.
    func didChange(_ object: ManagedObject) {
        if !object.isDeleted { unprocessed.update(object) }
        guard !object.isInserted, !object.isDeleted, !object.isUpdated else { return }
        object.isUpdated = true
        updated[ObjectIdentifier(object)] = object
    }

    /// Marks `object` deleted. Its `prepareForDeletion()` runs here, before the delete rules
    /// (which run when pending changes are processed), as Core Data calls it inside `delete(_:)`.
    func delete(_ object: ManagedObject) {
        guard object.graph === self, !object.isDeleted else { return }
        object.willAccessValues()
        object.prepareForDeletion()
        willChange(object)
        object.isDeleted = true
        deleted[ObjectIdentifier(object)] = object
        unprocessed.delete(object)
    }

    /// Marks an object another save deleted as deleted here (Core Data's merge invokes
    /// `delete(_:)` on it), without running its `prepareForDeletion()` or delete rules: the other
    /// save ran them in the store.
    func deleteMerged(_ object: ManagedObject) {
        object.isDeleted = true
        deleted[ObjectIdentifier(object)] = object
        mergedDeletes[ObjectIdentifier(object)] = object
    }

    /// Lets the objects merges deleted go: this context's objects on the other side of their
    /// links let them go too, as the other save's delete rules did in the store.
    func finishMergedDeletes() {
        guard !mergedDeletes.isEmpty else { return }
        let gone = mergedDeletes.values
        mergedDeletes = [:]
        for object in gone {
            let id = object.objectID
            for (index, targets) in object.storage.relationships.enumerated() {
                guard let inverse = object.layout.inverseSlots[index] else { continue }
                for target in targets.objectIDs {
                    if let other = registered[target], !other.isDeleted { remove(id, from: other, at: inverse) }
                }
            }
            unregister(object)
            object.isDeleted = false
            object.isUpdated = false
        }
    }

    /// Starts a read: an unpinned context takes the latest generation (and, for a child, its
    /// parent's latest unsaved objects) for it.
    func beginRead() {
        if !pinsQueryGeneration { unpinGeneration() }
    }

    /// Ends a read, a save or a merge: an unpinned context lets its generation go, so that a
    /// context between reads holds no store snapshot, and the store's snapshot can end its
    /// transaction once no context holds it (``IncrementalStoreSnapshot/contextsStoppedHolding()``).
    func endRead() {
        if !pinsQueryGeneration { unpinGeneration() }
    }

    /// Lets the next read pin the latest generation.
    func unpinGeneration() {
        pinned = nil
        parentRows = [:]
    }

    /// Lets an object go: it no longer belongs to the context.
    func unregister(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        if registered.removeValue(forKey: object.objectID) != nil { announce(object.objectID, registered: false) }
        inserted[key] = nil
        updated[key] = nil
        deleted[key] = nil
        propagatedDeletes.remove(key)
        object.graph = nil
    }
}
