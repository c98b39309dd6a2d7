import Foundation
import OrderedCollections

/// A store that keeps its objects itself and hands them out as they are asked for: subclass it
/// for a store of your own, as Core Data's `NSIncrementalStore`. Strata's SQLite store is one.
///
/// Unlike an ``AtomicStore``, whose objects the coordinator holds in memory, an incremental store
/// is read one object (or one fetch) at a time, through the snapshot of the generation that
/// asks (see ``IncrementalStoreSnapshot``), and written one save at a time. The contract, and
/// when Strata calls what, always on the coordinator's serial queue unless said otherwise:
/// - ``init(coordinator:configurationName:url:options:)`` when the store is added, then
///   ``loadMetadata()``: read the store's metadata (its UUID and model version hashes), or leave
///   a new store's as it is; the coordinator then adds the model's hashes and checks them.
/// - ``newSnapshot()`` after the store is added and after every save: the state the next
///   generation reads. Kept as long as a context reads that generation.
/// - ``execute(_:with:)`` with ``IncrementalStoreRequest/fetch(entity:predicate:)`` for a fetch,
///   with the snapshot of the fetching context's generation (on the context's thread: reads may
///   come from several threads at once, each with its own snapshot or the same one); and with
///   ``IncrementalStoreRequest/save(_:)`` for a save, applied whole or not at all.
/// - ``newValuesForObject(with:with:)`` to fulfil a fault, and
///   ``newValue(forRelationship:forObjectWith:with:)`` for a relationship the node left out, when
///   it is first used (read, changed, or saved with its object), once per node read (also on the
///   reading context's thread, through the snapshot the node was read with).
/// - ``obtainPermanentIDs(for:)`` when a context saves new objects.
/// - ``managedObjectContextDidRegisterObjects(with:)`` and
///   ``managedObjectContextDidUnregisterObjects(with:)`` as contexts take objects up and let them
///   go (on the context's thread).
///
/// Register the subclass with ``PersistentStoreCoordinator/registerStoreClass(_:forStoreType:)-(IncrementalStore.Type,_)``
/// and add it by its type.
open class IncrementalStore: PersistentStore, @unchecked Sendable {
    // Sendable by proof, as PersistentStore: the base class adds only `let`s and a weak
    // reference that is set once in init. A subclass that keeps mutable state must guard what
    // reads touch (they come from contexts' threads), as the SQLite store does with locks.

    /// The coordinator the store belongs to.
    public private(set) weak var persistentStoreCoordinator: PersistentStoreCoordinator?
    /// The model of the store's coordinator.
    public let managedObjectModel: ManagedObjectModel

    /// The type the coordinator is creating a store for; read by the initialiser.
    @TaskLocal static var creatingType: StoreType?

    /// Makes the store; reading it is for ``loadMetadata()``.
    public required init(
        coordinator: PersistentStoreCoordinator, configurationName: String?, url: URL?, options: [String: any Sendable]
    ) throws {
        persistentStoreCoordinator = coordinator
        managedObjectModel = coordinator.managedObjectModel
        super.init(
            type: Self.creatingType ?? StoreType(rawValue: String(describing: Self.self)),
            configurationName: configurationName, url: url, options: options)
        var metadata = self.metadata
        metadata[Self.storeUUIDKey] = .string(Self.identifierForNewStore(at: url))
        replaceMetadata(metadata)
    }

    // MARK: The contract

    /// Reads the store's metadata into ``PersistentStore/metadata`` (with
    /// `replaceMetadata`-like care: a store with its own UUID keeps it). The base class has none.
    open func loadMetadata() throws {}

    /// The UUID of a store created at `url`: a new random one.
    open class func identifierForNewStore(at url: URL?) -> String {
        UUID().uuidString
    }

    /// A view of the store as it is now, which reads through it keep seeing. The base class
    /// cannot pin a state and returns a ``CurrentStateSnapshot``.
    open func newSnapshot() throws -> any IncrementalStoreSnapshot {
        CurrentStateSnapshot()
    }

    /// Answers a fetch (with the generation's `snapshot`) or commits a save (`snapshot` is
    /// `nil`). The base class answers neither.
    open func execute(_ request: IncrementalStoreRequest, with snapshot: (any IncrementalStoreSnapshot)?) throws -> IncrementalStoreResult {
        throw PersistenceError(.storeBrokeContract, "\(Self.self) does not implement execute(_:with:)")
    }

    /// An object's values, as `snapshot` has them, or `nil` when it has no such object.
    open func newValuesForObject(with objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot) throws -> IncrementalStoreNode? {
        nil
    }

    /// The targets of a relationship that ``newValuesForObject(with:with:)`` left out (a to-one
    /// as a to-many: its one target, or none), as Core Data asks its incremental stores.
    open func newValue(
        forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
        with snapshot: any IncrementalStoreSnapshot
    ) throws -> [ManagedObjectID] {
        []
    }

    /// Permanent IDs for new objects, one per temporary ID given and in the same order. The
    /// base class counts reference numbers up per entity hierarchy (see
    /// ``PersistentStore/nextReferencesKey``; a subclass that keeps them across launches
    /// writes `nextReferences` with its data, or overrides this).
    open func obtainPermanentIDs(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
        try objectIDs.map { id in
            guard let layout = managedObjectModel.layout(for: id.entityName) else {
                throw PersistenceError(.unknownEntity, objectIDs: [id], "the model has no entity named '\(id.entityName)'")
            }
            return newObjectID(for: layout.entity, referenceObject: newReferenceNumbers(rootEntity: layout.rootEntityName, count: 1).lowerBound)
        }
    }

    /// A context now holds objects of this store (a fetch or a fault registered them, a save gave
    /// them permanent IDs): a store that keeps rows for the objects contexts hold can keep
    /// theirs. Called on that context's thread, once per object; the base class does nothing.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [ManagedObjectID]) {}

    /// A context let objects of this store go (it was reset, or they were deleted and saved).
    /// Called on that context's thread; the base class does nothing.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [ManagedObjectID]) {}

    /// Reads a store's metadata without adding the store. The base class has none to read.
    open class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        [:]
    }

    /// Writes a store's metadata without adding the store. The base class keeps none.
    open class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {}

    /// Deletes or empties the store at `url`, as its kind of store requires
    /// (``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)``). The base
    /// class keeps nothing of its own, so it has nothing to destroy; a store with files or
    /// tables overrides it.
    open class func destroyPersistentStore(at url: URL, options: [String: any Sendable]) throws {}

    /// Replaces the store at `destination` with a copy of the one at `source`, whole or not at
    /// all (``PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``).
    /// The base class does not know how a store keeps its data, so it refuses
    /// (``PersistenceError`` `.unsupportedRequest`); a store with files or tables overrides it.
    open class func replacePersistentStore(
        at destination: URL, destinationOptions: [String: any Sendable], withPersistentStoreFrom source: URL,
        sourceOptions: [String: any Sendable]
    ) throws {
        throw PersistenceError(.unsupportedRequest, "the store class \(self) does not say how to replace a store")
    }

    /// The ID of the object of `entity` that the store knows by `referenceObject`.
    public final func newObjectID(for entity: EntityDescription, referenceObject: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity.name, key: .permanent(store: identifier, reference: referenceObject))
    }

    /// The reference the store knows an object of its own by, or `nil` for another store's.
    public final func referenceObject(for objectID: ManagedObjectID) -> Int64? {
        objectID.persistentStoreIdentifier == identifier ? objectID.referenceNumber : nil
    }

    // MARK: Called by the coordinator: a store that reads rows itself (``RowReadingStore``) is
    // asked for them; any other goes through the contract above.

    /// The store has been added and its metadata checked: a store may now create what a new
    /// store needs, or write metadata the coordinator brought up to date.
    func didAdd() throws {
        try (self as? any LifecycleAwareStore)?.storeWasAdded()
    }

    /// Whether another process (or coordinator) committed to the store since the last snapshot
    /// this store made: the coordinator then starts a new generation.
    var hasOutsideChanges: Bool {
        (self as? any LifecycleAwareStore)?.hasChangesFromOutside ?? false
    }

    /// The row of an object, read through `snapshot`.
    func row(for id: ManagedObjectID, layout: EntityLayout, in snapshot: any IncrementalStoreSnapshot) throws -> Row? {
        if let store = self as? any RowReadingStore { return try store.row(forObject: id, layout: layout, in: snapshot) }
        guard let node = try newValuesForObject(with: id, with: snapshot) else { return nil }
        return try row(from: node, layout: layout, snapshot: snapshot)
    }

    /// The rows of the objects of one entity (not its subentities) among `references`, read
    /// together where the store can (a fetch's prefetching: per entity, 200 to a query on the SQL
    /// stores); those the store does not have are left out.
    func rows(
        of layout: EntityLayout, references: [Int64], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        if let store = self as? any RowReadingStore { return try store.rows(ofEntity: layout, references: references, in: snapshot) }
        var rows: [(reference: Int64, row: Row)] = []
        for reference in references {
            let id = newObjectID(for: layout.entity, referenceObject: reference)
            if let row = try row(for: id, layout: layout, in: snapshot) { rows.append((reference, row)) }
        }
        return rows
    }

    /// Every object of one entity (not its subentities) that may match `predicate`, with its row.
    func rows(
        of layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        if let store = self as? any RowReadingStore { return try store.rows(ofEntity: layout, matching: predicate, in: snapshot) }
        var rows: [(reference: Int64, row: Row)] = []
        switch try execute(.fetch(entity: layout.entity, predicate: predicate), with: snapshot) {
        case .nodes(let nodes):
            for node in nodes {
                guard let reference = referenceObject(for: node.objectID) else { continue }
                rows.append((reference, try row(from: node, layout: layout, snapshot: snapshot)))
            }
        case .objectIDs(let ids):
            for id in ids {
                guard let reference = referenceObject(for: id), let row = try row(for: id, layout: layout, in: snapshot) else { continue }
                rows.append((reference, row))
            }
        case .saved:
            throw PersistenceError(.storeBrokeContract, "\(Self.self) answered a fetch with a save's result")
        }
        return rows
    }

    /// The rows of one entity (not its subentities) that match `predicate` exactly, sorted by
    /// `sort` (attribute name, ascending) with `offset` and `limit` applied: `nil` when the
    /// store cannot answer exactly, and the fetching context then sorts and windows itself.
    func rows(
        of layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)]? {
        try (self as? any RowReadingStore)?.rows(ofEntity: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit, in: snapshot)
    }

    /// A dictionary fetch's groups of one entity's objects (not its subentities') that match
    /// `predicate`, computed by the store; `nil` when it cannot compute them exactly as the
    /// fetching context would.
    func groups(
        of layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [[String: EvaluationValue]]? {
        try (self as? any RowReadingStore)?.groups(
            ofEntity: layout, matching: predicate, groupBy: groupBy, properties: properties, sortedBy: sort, in: snapshot
        )?.map(\.values)
    }

    // Persistent history is the store's to record in its own transaction: a store of your own
    // has none; the SQL stores answer as ``HistoryKeepingStore``s.

    override func didRemove() {
        (self as? any LifecycleAwareStore)?.storeWasRemoved()
    }

    override func historyTransactions(
        after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter
    ) throws -> [PersistentHistoryTransaction] {
        try historyRecorder().recordedHistory(after: position, authors: authors)
    }

    override func deleteHistory(before position: PersistentHistoryChangeRequest.Position) throws -> Int {
        try historyRecorder().removeHistory(before: position)
    }

    override func historyBounds() throws -> (last: Int64, firstKept: Int64) {
        try historyRecorder().recordedHistoryBounds()
    }

    private func historyRecorder() throws -> any HistoryKeepingStore {
        guard let store = self as? any HistoryKeepingStore else {
            throw PersistenceError(.unsupportedRequest, "\(Self.self) does not record persistent history")
        }
        return store
    }

    /// Commits a save's changes; returns each saved object's new version.
    func commit(_ changes: ChangeSet) throws -> [ManagedObjectID: Int64] {
        if let store = self as? any RowSavingStore {
            let history = tracksPersistentHistory ? try SaveHistory(changes, store: store, model: managedObjectModel) : nil
            return try store.save(changes.rowChanges, recording: history)
        }
        let request = SaveChangesRequest(
            insertedObjects: nodes(changes.inserted), updatedObjects: nodes(changes.updated), deletedObjects: changes.deleted)
        guard case .saved(let versions) = try execute(.save(request), with: nil) else {
            throw PersistenceError(.storeBrokeContract, "\(Self.self) answered a save with a fetch's result")
        }
        return versions
    }

    /// Reference numbers for new objects, through ``obtainPermanentIDs(for:)``.
    override func makeReferenceNumbers(for entity: EntityDescription, rootEntity: String, count: Int) throws -> [Int64] {
        let space = ObjectIDSpace.make(store: nil, entityName: entity.name)
        let temporary = (0..<count).map { _ in ManagedObjectID.temporary(in: space) }
        return try obtainPermanentIDs(for: temporary).map { id in
            guard let reference = referenceObject(for: id) else {
                throw PersistenceError(.storeBrokeContract, objectIDs: [id], "\(Self.self) gave a permanent ID of another store")
            }
            return reference
        }
    }

    private func nodes(_ rows: [ManagedObjectID: Row]) -> [IncrementalStoreNode] {
        rows.compactMap { id, row in
            managedObjectModel.layout(for: id.entityName).map { IncrementalStoreNode(objectID: id, row: row, layout: $0) }
        }
    }

    /// The row a node describes. A relationship the node leaves out (a to-one as a to-many) is a
    /// ``RelationshipFault`` reading it through `snapshot` at its first use, as Core Data asks
    /// ``newValue(forRelationship:forObjectWith:with:)`` when a relationship fault fires; without
    /// a snapshot it is empty (a save's nodes carry every relationship).
    func row(from node: IncrementalStoreNode, layout: EntityLayout, snapshot: (any IncrementalStoreSnapshot)?) throws -> Row {
        var row = Row(emptyFor: layout)
        row.version = node.version
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            row.attributes[slot] = node.attributeValues[attribute.name]
        }
        for (slot, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            if let targets = node.relatedObjectIDs[relationship.name] {
                row.relationships[slot] = relationship.isToMany ? .toMany(OrderedSet(targets)) : .toOne(targets.first)
            } else if let snapshot {
                let objectID = node.objectID
                row.relationships[slot] = .unread(RelationshipFault(isToMany: relationship.isToMany) { [weak self] in
                    guard let self else {
                        throw PersistenceError(.storeNotFound, objectIDs: [objectID], "the store of this object was removed")
                    }
                    return try newValue(forRelationship: relationship, forObjectWith: objectID, with: snapshot)
                })
            }
        }
        return row
    }
}
