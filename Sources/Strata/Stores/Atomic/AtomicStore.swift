import Foundation
import HashTreeCollections
import OrderedCollections

/// A store that loads all its objects at once and writes them all at once: subclass it for a
/// file format of your own, as Core Data's `NSAtomicStore`.
///
/// The contract, and when Strata calls what:
/// - ``init(coordinator:configurationName:url:options:)`` when the store is added. When no file
///   exists at the URL, the store creates a zero-length file (a reservation): a zero-length
///   file means "new store here". The metadata of an existing file is read here, through
///   ``metadataForPersistentStore(at:)``. A subclass's initialiser must call this one.
/// - ``load()`` right after, once: read the file (it may be zero-length) and hand every object
///   to ``addCacheNodes(_:)``, making IDs with ``objectID(for:withReferenceObject:)``.
/// - At each save, on the coordinator's queue: ``newReferenceObject(for:)`` once per new
///   object when its context obtains permanent IDs; then ``newCacheNode(for:)`` once per
///   inserted object, ``updateCacheNode(_:from:)`` once per updated object,
///   ``willRemoveCacheNodes(_:)`` with the deleted ones; then ``save()``, which writes every
///   node (``cacheNodes()``) and the ``metadataForSaving``. When `save()` throws, the cache is put back as
///   it was and the save fails as a whole.
/// - If the store is removed before its first save, the zero-length reservation is deleted.
///
/// Register the subclass with ``PersistentStoreCoordinator/registerStoreClass(_:forStoreType:)-(AtomicStore.Type,_)``
/// and add it by its type. Its methods are only ever called on the coordinator's serial queue.
open class AtomicStore: PersistentStore, @unchecked Sendable {
    // Sendable by proof, as PersistentStore: the cache below is touched only from the
    // coordinator's serial queue (the contract above), which serialises every access.

    /// The coordinator the store belongs to.
    public private(set) weak var persistentStoreCoordinator: PersistentStoreCoordinator?
    /// The store's file.
    public var fileURL: URL { url ?? URL(fileURLWithPath: "/dev/null") }

    private var nodes: [ManagedObjectID: AtomicStoreCacheNode] = [:]
    /// Whether init made the zero-length reservation file and no save has written it since.
    private var holdsReservation = false

    /// The type the coordinator is creating a store for; read by the initialiser.
    @TaskLocal static var creatingType: StoreType?

    /// Opens (or reserves) the store at `url` and reads its metadata.
    ///
    /// - Throws: ``StoreError`` when the file cannot be created or its metadata read.
    public required init(
        coordinator: PersistentStoreCoordinator?, configurationName: String?, url: URL, options: [String: any Sendable]
    ) throws {
        persistentStoreCoordinator = coordinator
        super.init(
            type: Self.creatingType ?? StoreType(rawValue: String(describing: Self.self)),
            configurationName: configurationName, url: url, options: options)
        let manager = FileManager.default
        if !manager.fileExists(atPath: url.path) {
            guard manager.createFile(atPath: url.path, contents: nil) else {
                throw StoreError(.writeFailed, file: url, "cannot create the store file")
            }
            holdsReservation = true
        }
        if isNewStore {
            return
        }
        var metadata = try Self.metadataForPersistentStore(at: url)
        if case .dictionary(let counters)? = metadata.removeValue(forKey: Self.nextReferencesKey) {
            nextReferences = counters.compactMapValues { if case .integer(let n) = $0 { n } else { nil } }
        }
        replaceMetadata(metadata)
    }

    /// Whether the file is the zero-length reservation of a store never saved.
    public var isNewStore: Bool {
        ((try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.size] as? Int) ?? 0) == 0
    }

    // MARK: The contract

    /// Reads the store's objects and adds them with ``addCacheNodes(_:)``. The file may be
    /// zero-length: a new store, with no objects. The base class reads nothing.
    open func load() throws {}

    /// Writes every cache node and the metadata to the store's file. The base class writes
    /// nothing.
    open func save() throws {}

    /// A cache node for a newly inserted object. The base class makes one with the object's
    /// values.
    open func newCacheNode(for object: ObjectSnapshot) -> AtomicStoreCacheNode {
        AtomicStoreCacheNode(
            objectID: object.objectID, attributeValues: object.attributeValues, relatedObjectIDs: object.relatedObjectIDs)
    }

    /// Brings an object's cache node up to date with its saved values.
    open func updateCacheNode(_ node: AtomicStoreCacheNode, from object: ObjectSnapshot) {
        node.attributeValues = object.attributeValues
        node.relatedObjectIDs = object.relatedObjectIDs
    }

    /// Called before deleted objects' nodes leave the cache (and before ``save()``).
    open func willRemoveCacheNodes(_ nodes: Set<AtomicStoreCacheNode>) {}

    /// A new reference number for an object of `entity`: unique within the entity's hierarchy
    /// and never reused, even after deletes. The base class counts up per hierarchy and keeps
    /// the counter in the metadata it hands to ``save()``.
    open func newReferenceObject(for entity: EntityDescription) -> Int64 {
        let root = persistentStoreCoordinator?.managedObjectModel.layout(for: entity.name)?.rootEntityName ?? entity.name
        return newReferenceNumbers(rootEntity: root, count: 1).lowerBound
    }

    /// Every cache node.
    public func cacheNodes() -> Set<AtomicStoreCacheNode> {
        Set(nodes.values)
    }

    /// The cache node of an object, if the store has it.
    public func cacheNode(for objectID: ManagedObjectID) -> AtomicStoreCacheNode? {
        nodes[objectID]
    }

    /// Adds loaded objects to the cache.
    public func addCacheNodes(_ nodes: Set<AtomicStoreCacheNode>) {
        for node in nodes { self.nodes[node.objectID] = node }
    }

    /// The reference number of an object of this store.
    public func referenceObject(for objectID: ManagedObjectID) -> Int64? {
        objectID.persistentStoreIdentifier == identifier ? objectID.referenceNumber : nil
    }

    /// The ID of the object of `entity` with reference number `reference` in this store.
    public final func objectID(for entity: EntityDescription, withReferenceObject reference: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity.name, key: .permanent(store: identifier, reference: reference))
    }

    /// Whether the store's reference numbers are one series for every entity (Core Data's XML
    /// store names objects `z<n>`), rather than one per entity hierarchy: a migration then numbers
    /// the objects custom code inserts after every object of the store. `false` unless overridden.
    open class var numbersObjectsStoreWide: Bool { false }

    /// Reads a store file's metadata without loading its objects. Subclasses that keep
    /// metadata override it; the base class has none to read.
    open class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        [:]
    }

    /// Writes a store file's metadata without loading its objects. Subclasses that keep
    /// metadata override it.
    open class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {}

    /// Deletes the store file at `url` (``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)``).
    /// A file that is not empty must read as a store of this class
    /// (``metadataForPersistentStore(at:)``), so that a foreign file given by mistake is left
    /// as it is. No file at `url`: nothing to do. Subclasses that keep more than one file
    /// override it.
    open class func destroyPersistentStore(at url: URL, options: [String: any Sendable]) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        if !StoreFileMigration.hasNoStoreFile(at: url) { _ = try metadataForPersistentStore(at: url) }
        try FileManager.default.removeItem(at: url)
    }

    /// Replaces the store file at `destination` with a copy of the one at `source`
    /// (``PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``):
    /// the copy is written beside the destination, then renamed over it, so the destination is
    /// the old file or the new one whole. The source must read as a store of this class, and a
    /// destination file that is not empty too (a foreign file is left as it is). Subclasses that
    /// keep more than one file override it.
    open class func replacePersistentStore(
        at destination: URL, destinationOptions: [String: any Sendable], withPersistentStoreFrom source: URL,
        sourceOptions: [String: any Sendable]
    ) throws {
        guard !StoreFileMigration.hasNoStoreFile(at: source) else {
            throw StoreError(.notAStore, file: source, "there is no store here to copy")
        }
        _ = try metadataForPersistentStore(at: source)
        if !StoreFileMigration.hasNoStoreFile(at: destination) { _ = try metadataForPersistentStore(at: destination) }
        try StoreFileCopy.copy(source, over: destination)
    }

    /// The metadata to write with the objects, reference counters included: what
    /// ``metadataForPersistentStore(at:)`` must read back.
    public var metadataForSaving: [String: MetadataValue] {
        var metadata = self.metadata
        metadata[Self.nextReferencesKey] = .dictionary(nextReferences.mapValues(MetadataValue.integer))
        return metadata
    }

    // MARK: Called by the coordinator

    override func makeReferenceNumbers(for entity: EntityDescription, rootEntity: String, count: Int) -> [Int64] {
        (0..<count).map { _ in newReferenceObject(for: entity) }
    }

    override func loadTables(model: ManagedObjectModel) throws -> [String: Generation.Table] {
        try load()
        return try tables(from: nodes.values, model: model)
    }

    override func commit(
        _ changes: ChangeSet, tables: [String: Generation.Table], previous: [String: Generation.Table],
        model: ManagedObjectModel
    ) throws {
        for (id, row) in changes.inserted {
            guard let layout = model.layout(for: id.entityName) else { continue }
            nodes[id] = newCacheNode(for: ObjectSnapshot(objectID: id, row: row, layout: layout))
        }
        for (id, row) in changes.updated {
            guard let layout = model.layout(for: id.entityName), let node = nodes[id] else { continue }
            updateCacheNode(node, from: ObjectSnapshot(objectID: id, row: row, layout: layout))
            node.version = row.version + 1
        }
        let removed = Set(changes.deleted.keys.compactMap { nodes[$0] })
        if !removed.isEmpty { willRemoveCacheNodes(removed) }
        for id in changes.deleted.keys { nodes[id] = nil }
        do {
            try save()
            holdsReservation = false
        } catch {
            nodes = [:]
            addCacheNodes(Set(Self.nodes(from: previous, store: identifier, model: model)))
            throw error
        }
    }

    override func didRemove() {
        if holdsReservation, isNewStore {
            try? FileManager.default.removeItem(at: fileURL)
        }
    }

    /// The coordinator's rows for cache nodes.
    func tables(from nodes: some Sequence<AtomicStoreCacheNode>, model: ManagedObjectModel) throws -> [String: Generation.Table] {
        var rows: [String: [(reference: Int64, row: Row)]] = [:]
        for node in nodes {
            guard let layout = model.layout(for: node.objectID.entityName), let reference = node.objectID.referenceNumber else {
                throw StoreError(
                    .unknownEntity, file: fileURL, "the store holds objects of entity '\(node.objectID.entityName)', which the model does not have")
            }
            var row = Row(emptyFor: layout)
            row.version = node.version
            for (index, attribute) in layout.attributes.enumerated() {
                row.attributes[index] = attribute.isTransient ? nil : node.attributeValues[attribute.name]
            }
            for (index, relationship) in layout.relationships.enumerated() {
                let ids = node.relatedObjectIDs[relationship.name] ?? []
                row.relationships[index] = relationship.isToMany ? .toMany(OrderedSet(ids)) : .toOne(ids.first)
            }
            rows[layout.name, default: []].append((reference, row))
        }
        var tables: [String: Generation.Table] = [:]
        for (entity, rows) in rows {
            do {
                tables[entity] = try RowTable(rows: rows)
            } catch {
                throw StoreError(.corruptFile, file: fileURL, "the store holds two \(entity) objects with the reference number \(error.reference)")
            }
        }
        return tables
    }

    /// Cache nodes for the coordinator's rows.
    static func nodes(from tables: [String: Generation.Table], store: String, model: ManagedObjectModel) -> [AtomicStoreCacheNode] {
        var nodes: [AtomicStoreCacheNode] = []
        for (entity, table) in tables {
            guard let layout = model.layout(for: entity) else { continue }
            for (reference, row) in table {
                let id = ManagedObjectID(entityName: entity, key: .permanent(store: store, reference: reference))
                let snapshot = ObjectSnapshot(objectID: id, row: row, layout: layout)
                nodes.append(
                    AtomicStoreCacheNode(
                        objectID: id, attributeValues: snapshot.attributeValues, relatedObjectIDs: snapshot.relatedObjectIDs,
                        version: row.version))
            }
        }
        return nodes
    }
}
