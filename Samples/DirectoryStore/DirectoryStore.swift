import Foundation
import Strata

/// An incremental store of the user's own: a folder with one JSON file per object, read one
/// object (or one entity) at a time, never loaded whole. It is the proof that
/// ``IncrementalStore`` works for a store outside Strata: it uses nothing but the public
/// subclass contract, and the store conformance suite runs on it.
///
/// ```
/// Store.directory/metadata.json                 {"metadata": {…}, "next": {"Author": 3}}
/// Store.directory/Book/1.json                   {"version": 2, "attributes": {"title": "Emma"}, "relationships": {"author": ["Author/1"]}}
/// ```
///
/// Simplifications a real store would not make, said here so that no one copies them unawares:
/// reads see the folder as it is (``CurrentStateSnapshot``: no query generations), and a save
/// checks every version first and then writes file by file, so a crash in the middle of one
/// can leave part of it.
public final class DirectoryStore: IncrementalStore, @unchecked Sendable {
    // Sendable as IncrementalStore says: the only state is on disk, and saves (the only writes)
    // come one at a time on the coordinator's queue.

    /// The store type to register and add this store by.
    public static let storeType = StoreType(rawValue: "Directory")

    /// Registers the store class with the coordinator.
    public static func register() {
        PersistentStoreCoordinator.registerStoreClass(DirectoryStore.self, forStoreType: storeType)
    }

    private var folder: URL { url ?? URL(fileURLWithPath: "/dev/null") }

    // MARK: Metadata

    public override func loadMetadata() throws {
        let file = folder.appendingPathComponent("metadata.json")
        guard FileManager.default.fileExists(atPath: file.path) else {
            // A new store: the folder and its metadata are written now, with the UUID it was given.
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.write(Contents(metadata: metadata, next: [:]), to: folder)
            return
        }
        // The UUID came in through identifierForNewStore(at:) (the setter keeps the one the store has).
        metadata = try Self.contents(of: folder).metadata
    }

    public override class func identifierForNewStore(at url: URL?) -> String {
        // An existing folder keeps its UUID: the coordinator asks this before loadMetadata().
        guard let url, let contents = try? contents(of: url), let uuid = contents.metadata[PersistentStore.storeUUIDKey]?.stringValue else {
            return UUID().uuidString
        }
        return uuid
    }

    public override class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        try contents(of: url).metadata
    }

    public override class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {
        var contents = try contents(of: url)
        var merged = metadata
        merged[PersistentStore.storeUUIDKey] = contents.metadata[PersistentStore.storeUUIDKey]
        merged[PersistentStore.storeTypeKey] = contents.metadata[PersistentStore.storeTypeKey]
        contents.metadata = merged
        try write(contents, to: url)
    }

    // MARK: Reading

    public override func newValuesForObject(with objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot) throws -> IncrementalStoreNode? {
        guard let reference = referenceObject(for: objectID) else { return nil }
        let file = objectFile(entity: objectID.entityName, reference: reference)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try node(at: file, id: objectID)
    }

    public override func execute(_ request: IncrementalStoreRequest, with snapshot: (any IncrementalStoreSnapshot)?) throws -> IncrementalStoreResult {
        switch request {
        case .fetch(let entity, _):
            // Every object of the entity; the context evaluates the predicate.
            let directory = folder.appendingPathComponent(entity.name)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return .nodes(try names.compactMap { name in
                guard name.hasSuffix(".json"), let reference = Int64(name.dropLast(5)) else { return nil }
                return try node(at: directory.appendingPathComponent(name), id: newObjectID(for: entity, referenceObject: reference))
            })
        case .save(let changes):
            return .saved(versions: try save(changes))
        }
    }

    // MARK: Writing

    /// Checks every updated and deleted object's version, then writes: all or (but for a crash)
    /// nothing.
    private func save(_ changes: SaveChangesRequest) throws -> [ManagedObjectID: Int64] {
        var conflicts: [ManagedObjectID] = []
        for node in changes.updatedObjects where try storedVersion(of: node.objectID) != node.version {
            conflicts.append(node.objectID)
        }
        for (id, version) in changes.deletedObjects where try storedVersion(of: id) != version {
            conflicts.append(id)
        }
        for node in changes.insertedObjects where try storedVersion(of: node.objectID) != nil {
            conflicts.append(node.objectID)
        }
        guard conflicts.isEmpty else {
            throw PersistenceError(.conflict, objectIDs: conflicts, "\(conflicts.count) object(s) changed in \(folder.path) since they were read")
        }
        var versions: [ManagedObjectID: Int64] = [:]
        for node in changes.insertedObjects {
            versions[node.objectID] = try write(node, version: node.version > 0 ? node.version + 1 : 1)
        }
        for node in changes.updatedObjects {
            versions[node.objectID] = try write(node, version: node.version + 1)
        }
        for id in changes.deletedObjects.keys {
            guard let reference = referenceObject(for: id) else { continue }
            try FileManager.default.removeItem(at: objectFile(entity: id.entityName, reference: reference))
        }
        var contents = try Self.contents(of: folder)
        contents.metadata = metadata
        try Self.write(contents, to: folder)
        return versions
    }

    /// Reference numbers counted per entity hierarchy in `metadata.json`, never handed out twice.
    public override func obtainPermanentIDs(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
        var contents = try Self.contents(of: folder)
        let ids = try objectIDs.map { id in
            guard let entity = managedObjectModel.entity(named: id.entityName) else {
                throw PersistenceError(.unknownEntity, objectIDs: [id], "no entity named '\(id.entityName)'")
            }
            var root = entity
            while let parent = root.superentityName.flatMap(managedObjectModel.entity(named:)) { root = parent }
            let next = contents.next[root.name, default: 1]
            contents.next[root.name] = next + 1
            return newObjectID(for: entity, referenceObject: next)
        }
        try Self.write(contents, to: folder)
        return ids
    }

    // MARK: Files

    private struct Contents: Codable {
        var metadata: [String: MetadataValue]
        var next: [String: Int64]
    }

    private struct ObjectFile: Codable {
        var version: Int64
        /// JSON values; dates as seconds since 2001, so that they keep every bit.
        var attributes: [String: JSONValue]
        /// "Entity/reference" per target.
        var relationships: [String: [String]]
    }

    private static func contents(of folder: URL) throws -> Contents {
        let file = folder.appendingPathComponent("metadata.json")
        do {
            return try JSONDecoder().decode(Contents.self, from: Data(contentsOf: file))
        } catch let error as DecodingError {
            throw StoreError(.corruptFile, file: file, "the store's metadata is not what a directory store writes: \(error)")
        } catch {
            throw StoreError(.unreadable, file: file, "cannot read the store's metadata: \(error.localizedDescription)")
        }
    }

    private static func write(_ contents: Contents, to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(contents).write(to: folder.appendingPathComponent("metadata.json"), options: .atomic)
    }

    private func objectFile(entity: String, reference: Int64) -> URL {
        folder.appendingPathComponent(entity).appendingPathComponent("\(reference).json")
    }

    private func storedVersion(of id: ManagedObjectID) throws -> Int64? {
        guard let reference = referenceObject(for: id) else { return nil }
        let file = objectFile(entity: id.entityName, reference: reference)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try JSONDecoder().decode(ObjectFile.self, from: Data(contentsOf: file)).version
    }

    private func write(_ node: IncrementalStoreNode, version: Int64) throws -> Int64 {
        guard let reference = referenceObject(for: node.objectID) else {
            throw PersistenceError(.storeNotFound, objectIDs: [node.objectID], "\(node.objectID) is not an object of this store")
        }
        let file = ObjectFile(
            version: version, attributes: node.attributeValues.mapValues(JSONValue.init),
            relationships: node.relatedObjectIDs.mapValues { $0.map { "\($0.entityName)/\($0.referenceNumber ?? 0)" } })
        let url = objectFile(entity: node.objectID.entityName, reference: reference)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(file).write(to: url, options: .atomic)
        return version
    }

    private func node(at file: URL, id: ManagedObjectID) throws -> IncrementalStoreNode {
        guard let entity = managedObjectModel.entity(named: id.entityName) else {
            throw StoreError(.unknownEntity, file: file, "no entity named '\(id.entityName)' in the model")
        }
        let object: ObjectFile
        do {
            object = try JSONDecoder().decode(ObjectFile.self, from: Data(contentsOf: file))
        } catch {
            throw StoreError(.corruptFile, file: file, "not an object a directory store writes: \(error)")
        }
        var attributes: [String: AttributeValue] = [:]
        for (name, json) in object.attributes {
            guard let type = entity.attributesByName[name]?.type else { continue }
            attributes[name] = try json.attributeValue(of: type)
        }
        let related = object.relationships.mapValues { targets in
            targets.compactMap { target -> ManagedObjectID? in
                let parts = target.split(separator: "/")
                guard parts.count == 2, let destination = managedObjectModel.entity(named: String(parts[0])), let number = Int64(parts[1])
                else { return nil }
                return newObjectID(for: destination, referenceObject: number)
            }
        }
        return IncrementalStoreNode(objectID: id, attributeValues: attributes, relatedObjectIDs: related, version: object.version)
    }
}
