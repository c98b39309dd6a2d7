import ArgumentParser
import Foundation
import Strata

/// `strata dump STORE`: every object as a line of JSON (docs/JSONLines.md): a binary store read
/// chunk by chunk without a model; a SQLite store with the model it carries (or `--model`).
struct DumpStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump", abstract: "Write a store's objects as JSON Lines, one object per line.")

    @Argument(help: "A store file (binary or SQLite), or a postgres:// URL.")
    var store: String

    @Option(help: "Dump only the objects of this entity and of its subentities (as a fetch of the entity finds them).")
    var entity: String?

    @Flag(help: "With --entity: the entity's own objects only, not its subentities'.")
    var entityOnly = false

    @Option(help: "For a SQLite store that carries no model: the model (.xcdatamodel or .xcdatamodeld).")
    var model: String?

    func run() async throws {
        let url = try StoreFileKind.url(store)
        if StoreFileKind(of: url) != .binary {
            return try await dumpThroughContext(url)
        }
        let file = try BinaryStoreFile(contentsOf: url)
        if let entity, !file.entities.contains(where: { $0.name == entity }) {
            throw CommandFailure("the store has no entity '\(entity)' (it has: \(file.entities.map(\.name).joined(separator: ", ")))")
        }
        let entities = Dictionary(uniqueKeysWithValues: file.entities.map { ($0.name, $0) })
        let dumped = try entity.map { try Self.dumped($0, only: entityOnly, model: file.recordedModel()) }
        let output = FileHandle.standardOutput
        try file.forEachChunk { chunk in
            if let error = chunk.error { throw error }
            guard let name = chunk.entity, dumped?.contains(name) ?? true, let schema = entities[name] else { return }
            var text = ""
            for object in chunk.objects.sorted(by: { ($0.objectID.referenceNumber ?? 0) < ($1.objectID.referenceNumber ?? 0) }) {
                text += try ObjectLine.encode(object, entity: schema) + "\n"
            }
            output.write(Data(text.utf8))
        }
    }

    /// Every object of a SQLite or PostgreSQL store, entity by entity (by name), in reference order.
    /// Binary data whose external file cannot be read is left out of its object's line; the files
    /// are listed at the end, and the command fails (exit status 1) once everything else is out.
    private func dumpThroughContext(_ url: URL) async throws {
        let model = try StoreFileKind.model(for: url, given: self.model)
        let names = model.entities.map(\.name).sorted()
        if let entity, !names.contains(entity) {
            throw CommandFailure("the store has no entity '\(entity)' (it has: \(names.joined(separator: ", ")))")
        }
        let dumped = entity.map { Self.dumped($0, only: entityOnly, model: model) }
        let (coordinator, added) = try await StoreFileKind.openReadOnly(url, model: model)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let output = FileHandle.standardOutput
        var unreadable: [String] = []
        for name in names where dumped?.contains(name) ?? true {
            let (text, missing) = try await context.perform { context in
                var request = FetchRequest<ManagedObject>(entityName: name)
                request.includesSubentities = false
                let objects = try context.fetch(request).sorted { ($0.objectID.referenceNumber ?? 0) < ($1.objectID.referenceNumber ?? 0) }
                var missing: [String] = []
                let lines = try objects.map { object in
                    var values: [String: AttributeValue] = [:]
                    for key in object.entity.attributesByName.keys.sorted() {
                        let value = try object.primitiveAttributeValue(forKey: key)
                        if case .externalDataReference(let reference)? = value {
                            missing.append("\(object.objectID.uriRepresentation().absoluteString) \(key): \(reference.fileURL.path) (\(reference.reason))")
                            continue
                        }
                        values[key] = value
                    }
                    return try ObjectLine.encode(
                        entity: name, id: object.objectID, values: values,
                        relationships: object.entity.relationshipsByName.values.map { relationship in
                            (relationship, try ObjectLine.targets(of: object, relationship.name))
                        })
                }
                context.reset()
                return (lines.map { $0 + "\n" }.joined(), missing)
            }
            output.write(Data(text.utf8))
            unreadable += missing
        }
        try await coordinator.removePersistentStore(added)
        guard unreadable.isEmpty else {
            let list = unreadable.map { "  \($0)\n" }.joined()
            FileHandle.standardError.write(Data(
                "error: \(unreadable.count) externally stored value(s) cannot be read; their objects were written without them:\n\(list)".utf8))
            throw ExitCode(1)
        }
    }
}

extension DumpStore {
    /// The entities `--entity name` dumps: it and every entity below it, unless `only`.
    static func dumped(_ name: String, only: Bool, model: ManagedObjectModel) -> Set<String> {
        only ? [name] : Set([name] + model.descendants(of: name))
    }
}

/// One object as a line of JSON: `{"entity": …, "id": …, "values": {…}, "relationships": {…}}`.
enum ObjectLine {
    static func encode(_ object: BinaryStoreFile.Object, entity: BinaryStoreFile.Entity) throws -> String {
        try encode(
            entity: entity.name, id: object.objectID, values: object.attributeValues,
            relationships: entity.relationships.map { ($0, object.relatedObjectIDs[$0.name] ?? []) })
    }

    /// The IDs of the objects a relationship of `object` holds, in order for an ordered one.
    static func targets(of object: ManagedObject, _ key: String) throws -> [ManagedObjectID] {
        switch try object.value(forKey: key) {
        case let target as ManagedObject: [target.objectID]
        case let set as Set<ManagedObject>: set.map(\.objectID)
        case let array as [ManagedObject]: array.map(\.objectID)
        default: []
        }
    }

    static func encode(
        entity: String, id: ManagedObjectID, values: [String: AttributeValue],
        relationships related: [(relationship: some RelationshipShape, ids: [ManagedObjectID])]
    ) throws -> String {
        var relationships: [String: Any] = [:]
        for (relationship, found) in related {
            var ids = found
            if !relationship.isOrdered {
                // An unordered relationship has no order to keep: list it by reference, so that
                // equal stores dump equal lines.
                ids.sort { ($0.entityName, $0.referenceNumber ?? 0) < ($1.entityName, $1.referenceNumber ?? 0) }
            }
            let targets = ids.map { $0.uriRepresentation().absoluteString }
            if relationship.isToMany {
                if !targets.isEmpty { relationships[relationship.name] = targets }
            } else if let target = targets.first {
                relationships[relationship.name] = target
            }
        }
        let line: [String: Any] = [
            "entity": entity,
            "id": id.uriRepresentation().absoluteString,
            "values": values.mapValues(\.jsonObject),
            "relationships": relationships,
        ]
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// What a dumped line needs of a relationship, from a binary store's own schema or a model.
protocol RelationshipShape {
    var name: String { get }
    var isToMany: Bool { get }
    var isOrdered: Bool { get }
}

extension BinaryStoreFile.Relationship: RelationshipShape {}
extension RelationshipDescription: RelationshipShape {}
