#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Core Data's XML store (`NSXMLStoreType`, store type ``StoreType/xml``): the atomic store of
/// document-based Mac apps, in Core Data's `<database>` format — the format Xcode's mapping
/// models (`xcmapping.xml`) are written in, read by the same parser (`CoreDataXMLDocument`).
///
/// ```xml
/// <database>
///     <databaseInfo>
///         <version>134481920</version>
///         <UUID>…</UUID>
///         <nextObjectID>104</nextObjectID>
///         <metadata><plist version="1.0"><dict>…</dict></plist></metadata>
///     </databaseInfo>
///     <object type="BOOK" id="z102">
///         <attribute name="title" type="string">Emma</attribute>
///         <relationship name="author" type="0/1" destination="AUTHOR" idrefs="z103"></relationship>
///     </object>
/// </database>
/// ```
///
/// Objects are named `z<n>`, one number series for the whole store (`nextObjectID` is the next),
/// so an object's reference number is its `n`; its `type` is its entity's name in capitals. A
/// relationship's `type` is its minimum and maximum count (`0/0` for an unbounded to-many), its
/// targets in `idrefs` in order; an attribute without a value is left out. How values are
/// written is in `XMLStoreValues`. The metadata is a property list, with Core Data's key names,
/// the store's UUID in `<UUID>`.
///
/// It does not record persistent history, as Core Data records it in SQLite stores only: adding
/// it with ``PersistentStoreOption/persistentHistoryTracking`` is refused.
///
/// As the binary store, a save writes a new file beside the store, `fsync`s it and renames it
/// into place; the file is locked (`flock`) while a coordinator has it, and a second writer is
/// refused. A damaged or foreign file is a ``StoreError`` naming the object and its line.
public final class XMLStore: AtomicStore, @unchecked Sendable {
    // Sendable for the reason given on AtomicStore: `lock` and `nextObjectNumber` are touched
    // only from the coordinator's serial queue.

    /// The format version Core Data writes in `<databaseInfo><version>`.
    static let formatVersion = 134_481_920
    private var lock: StoreFileLock?
    /// The next `z<n>` number: one series for every entity.
    private var nextObjectNumber: Int64 = 101

    public required init(
        coordinator: PersistentStoreCoordinator?, configurationName: String?, url: URL, options: [String: any Sendable]
    ) throws {
        // Core Data keeps persistent history in SQLite stores only; an XML file has no place for
        // it, and history that vanished when the store closed would be worse than none.
        if options[PersistentStoreOption.persistentHistoryTracking] as? Bool == true {
            throw PersistenceError(
                .unsupportedRequest,
                "an XML store does not record persistent history (Core Data records it in SQLite stores only): use a SQLite or binary store")
        }
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
        lock = try StoreFileLock(url: url, exclusive: !isReadOnly)
        if !isReadOnly {
            // New files of saves that were interrupted (we hold the lock: no save is running).
            let directory = url.deletingLastPathComponent()
            let prefix = ".\(url.lastPathComponent).strata-tmp-"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(prefix) {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    // MARK: Metadata without the objects

    public override class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        let document = try read(url)
        return try metadata(of: document, file: url)
    }

    /// Rewrites the store's metadata, keeping its objects as they are.
    public override class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {
        let lock = try StoreFileLock(url: url, exclusive: true)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StoreError(.unreadable, file: url, "cannot read the store: \(error.localizedDescription)")
        }
        var merged = metadata
        let old = try self.metadata(of: try read(data, file: url), file: url)
        for key in [PersistentStore.storeUUIDKey, PersistentStore.storeTypeKey, nextReferencesKey] { merged[key] = old[key] }
        let text = String(decoding: data, as: UTF8.self)
        guard let start = text.range(of: "<metadata>"), let end = text.range(of: "</metadata>", range: start.upperBound..<text.endIndex) else {
            throw StoreError(.corruptFile, file: url, "the store has no <metadata> element to rewrite")
        }
        let list = try plistText(merged, file: url)
        try replaceFile(at: url, lock: lock, with: Data((text[..<start.upperBound] + "\n" + list + "\n        " + text[end.lowerBound...]).utf8))
    }

    // MARK: The atomic store contract

    /// Reads every object of the file (a zero-length file is a new, empty store).
    public override func load() throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel, !isNewStore else { return }
        let document = try Self.read(fileURL)
        let entities = try Self.entitiesByType(model, file: fileURL)
        var references: [String: (entity: EntityDescription, reference: Int64)] = [:]
        for object in document.objects {
            guard let entity = entities[object.type] else {
                throw StoreError(.unknownEntity, file: fileURL, "the object \(object.id) (line \(object.line)) is a \(object.type), an entity the model does not have")
            }
            guard object.id.first == "z", let number = Int64(object.id.dropFirst()), number > 0 else {
                throw StoreError(.corruptFile, file: fileURL, "the object id \(object.id) (line \(object.line)) is not z and a number")
            }
            references[object.id] = (entity, number)
            nextObjectNumber = max(nextObjectNumber, number + 1)
        }
        nextObjectNumber = max(nextObjectNumber, Int64(document.nextObjectID ?? 0))
        var nodes: Set<AtomicStoreCacheNode> = []
        for object in document.objects {
            guard let (entity, number) = references[object.id] else { continue }
            let node = AtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: number))
            for (name, value) in object.attributes {
                guard let attribute = entity.attributesByName[name], !attribute.isTransient else { continue }
                do {
                    node.attributeValues[name] = try XMLStoreValues.value(value.text, type: value.type, for: attribute.type)
                } catch let error as XMLStoreValues.Unreadable {
                    throw StoreError(.corruptFile, file: fileURL, "\(object.type) \(object.id).\(name) (line \(object.line)): \(error.description)")
                }
            }
            for (name, relationship) in object.relationships {
                guard entity.relationshipsByName[name] != nil else { continue }
                node.relatedObjectIDs[name] = try relationship.ids.map { id in
                    guard let target = references[id] else {
                        throw StoreError(.danglingReference, file: fileURL, "\(object.type) \(object.id).\(name) (line \(object.line)) names \(id), which is no object")
                    }
                    return objectID(for: target.entity, withReferenceObject: target.reference)
                }
            }
            nodes.insert(node)
        }
        addCacheNodes(nodes)
    }

    /// Writes every object and the metadata, crash-safely.
    public override func save() throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel, let lock else { return }
        let entities = try Self.entitiesByType(model, file: fileURL)
        let types = Dictionary(entities.map { ($0.value.name, $0.key) }, uniquingKeysWith: { a, _ in a })
        let uuid = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? identifier
        var lines = [
            #"<?xml version="1.0" standalone="no"?>"#, CoreDataXMLDocument.documentType, "", "<database>", "    <databaseInfo>",
            "        <version>\(Self.formatVersion)</version>", "        <UUID>\(uuid)</UUID>", "        <nextObjectID>\(nextObjectNumber)</nextObjectID>",
            "        <metadata>", try Self.plistText(metadataForSaving, file: fileURL), "        </metadata>", "    </databaseInfo>",
        ]
        let nodes = cacheNodes().sorted { (referenceObject(for: $0.objectID) ?? 0) < (referenceObject(for: $1.objectID) ?? 0) }
        // Nodes added whole (a migration's) may hold numbers past the series: it goes on after them.
        if let last = nodes.last.flatMap({ referenceObject(for: $0.objectID) }) { nextObjectNumber = max(nextObjectNumber, last + 1) }
        var seen: Set<Int64> = []
        for node in nodes {
            guard let number = referenceObject(for: node.objectID), seen.insert(number).inserted else {
                throw StoreError(.writeFailed, file: fileURL, "two objects would both be z\(referenceObject(for: node.objectID) ?? 0): an XML store numbers every object in one series")
            }
        }
        for node in nodes {
            guard let entity = model.entity(named: node.objectID.entityName), let type = types[entity.name],
                let number = referenceObject(for: node.objectID)
            else { continue }
            lines.append("    <object type=\"\(type)\" id=\"z\(number)\">")
            for (name, value) in node.attributeValues.sorted(by: { $0.key < $1.key }) {
                guard let attribute = entity.attributesByName[name], !attribute.isTransient else { continue }
                do {
                    lines.append("        <attribute name=\"\(name)\" type=\"\(XMLStoreValues.typeName(attribute.type))\">\(try XMLStoreValues.text(value))</attribute>")
                } catch let error as XMLStoreValues.Unwritable {
                    throw StoreError(.writeFailed, file: fileURL, "\(node.objectID.uriRepresentation().absoluteString) \(name): \(error.description)")
                }
            }
            for (name, relationship) in entity.relationshipsByName.sorted(by: { $0.key < $1.key }) where !relationship.isTransient {
                let targets = node.relatedObjectIDs[name] ?? []
                let counts = "\(relationship.minCount)/\(relationship.isToMany ? relationship.maxCount : 1)"
                let destination = types[relationship.destinationEntityName] ?? relationship.destinationEntityName.uppercased()
                let ids = targets.compactMap { referenceObject(for: $0).map { "z\($0)" } }.joined(separator: " ")
                lines.append(
                    "        <relationship name=\"\(name)\" type=\"\(counts)\" destination=\"\(destination)\"\(ids.isEmpty ? "" : " idrefs=\"\(ids)\"")></relationship>")
            }
            lines.append("    </object>")
        }
        lines.append("</database>")
        try Self.replaceFile(at: fileURL, lock: lock, with: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    public override class var numbersObjectsStoreWide: Bool { true }

    /// Object numbers come from one series for the whole store, as Core Data's `z<n>` ids do.
    public override func newReferenceObject(for entity: EntityDescription) -> Int64 {
        defer { nextObjectNumber += 1 }
        return nextObjectNumber
    }

    override func didRemove() {
        lock = nil
        super.didRemove()
    }

    // MARK: The file

    private static func read(_ url: URL) throws -> CoreDataXMLDocument {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StoreError(.unreadable, file: url, "cannot read the store: \(error.localizedDescription)")
        }
        return try read(data, file: url)
    }

    private static func read(_ data: Data, file url: URL) throws -> CoreDataXMLDocument {
        do {
            return try CoreDataXMLDocument(data, file: url)
        } catch let error as ModelFileError {
            let code: StoreError.Code = error.code == .unreadable ? .unreadable : error.code == .notAModel ? .notAStore : .corruptFile
            throw StoreError(code, file: url, "not a Core Data XML store that reads: \(error.message)\(error.line.map { " (line \($0))" } ?? "")")
        }
    }

    /// Strata's metadata from the file's `<databaseInfo>`: Core Data's keys renamed as for a
    /// SQLite store, the UUID from `<UUID>`, the type XML.
    private static func metadata(of document: CoreDataXMLDocument, file: URL) throws -> [String: MetadataValue] {
        var metadata: [String: MetadataValue] = [:]
        if let list = document.metadata {
            do {
                for (key, value) in try XMLPropertyList.dictionary(list) { metadata[CoreDataSQLiteMetadata.renamed[key] ?? key] = value }
            } catch let error as XMLPropertyList.Unreadable {
                throw StoreError(.corruptFile, file: file, "the store's metadata cannot be read: \(error.description)")
            }
        }
        guard let uuid = document.storeUUID, ManagedObjectID.isValidStoreIdentifier(uuid) else {
            throw StoreError(.corruptFile, file: file, "the store's <UUID> is missing or not one: \((document.storeUUID ?? "").debugDescription)")
        }
        metadata[PersistentStore.storeUUIDKey] = .string(uuid)
        metadata[PersistentStore.storeTypeKey] = .string(StoreType.xml.rawValue)
        return metadata
    }

    /// The metadata as the `<plist>` element: Core Data's key names, without the UUID and type
    /// the file says elsewhere.
    private static func plistText(_ metadata: [String: MetadataValue], file: URL) throws -> String {
        let back = Dictionary(uniqueKeysWithValues: CoreDataSQLiteMetadata.renamed.map { ($1, $0) })
        var list: [String: MetadataValue] = [:]
        for (key, value) in metadata where key != PersistentStore.storeUUIDKey && key != PersistentStore.storeTypeKey {
            list[back[key] ?? key] = value
        }
        do {
            return try XMLPropertyList.text(list, indent: "            ")
        } catch let error as XMLStoreValues.Unwritable {
            throw StoreError(.writeFailed, file: file, "the metadata cannot be written: \(error.description)")
        }
    }

    /// The model's entities by the `type` their objects have in the file: the name in capitals.
    private static func entitiesByType(_ model: ManagedObjectModel, file: URL) throws -> [String: EntityDescription] {
        var entities: [String: EntityDescription] = [:]
        for entity in model.entities {
            if let other = entities.updateValue(entity, forKey: entity.name.uppercased()) {
                throw StoreError(
                    .unsupportedModel, file: file,
                    "the entities \(other.name) and \(entity.name) have the same name in capitals, which is how an XML store names them")
            }
        }
        return entities
    }

    /// Writes `data` to a new file beside `url`, `fsync`s it, renames it over `url`, moves the
    /// lock to it and `fsync`s the folder: an interrupted save leaves the previous file whole.
    private static func replaceFile(at url: URL, lock: StoreFileLock, with data: Data) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).strata-tmp-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(.writeFailed, file: temporary, "cannot create the new store file: \(String(cString: strerror(errno)))")
        }
        do {
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    guard written > 0 else {
                        throw StoreError(.writeFailed, file: temporary, "cannot write the new store file: \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw StoreError(.writeFailed, file: temporary, "cannot flush the new store file") }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw StoreError(.writeFailed, file: temporary, "cannot lock the new store file") }
            guard rename(temporary.path, url.path) == 0 else { throw StoreError(.writeFailed, file: url, "cannot move the new store file into place") }
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        lock.replace(with: descriptor)
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}

extension StoreType {
    /// Core Data's XML store (`NSXMLStoreType`): ``XMLStore``. Its raw value is Core Data's
    /// store type name.
    public static let xml = StoreType(rawValue: "XML")
}
