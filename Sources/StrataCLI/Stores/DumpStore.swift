import ArgumentParser
import Foundation
import Strata

/// `strata dump STORE`: every object as a line of JSON (docs/JSONLines.md), read chunk by
/// chunk without a model.
struct DumpStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump", abstract: "Write a store's objects as JSON Lines, one object per line.")

    @Argument(help: "A binary store file.")
    var store: String

    @Option(help: "Dump only the objects of this entity.")
    var entity: String?

    func run() throws {
        let file = try BinaryStoreFile(contentsOf: URL(fileURLWithPath: store))
        if let entity, !file.entities.contains(where: { $0.name == entity }) {
            throw CommandFailure("the store has no entity '\(entity)' (it has: \(file.entities.map(\.name).joined(separator: ", ")))")
        }
        let entities = Dictionary(uniqueKeysWithValues: file.entities.map { ($0.name, $0) })
        let output = FileHandle.standardOutput
        try file.forEachChunk { chunk in
            if let error = chunk.error { throw error }
            guard let name = chunk.entity, entity == nil || name == entity, let schema = entities[name] else { return }
            var text = ""
            for object in chunk.objects.sorted(by: { ($0.objectID.referenceNumber ?? 0) < ($1.objectID.referenceNumber ?? 0) }) {
                text += try ObjectLine.encode(object, entity: schema) + "\n"
            }
            output.write(Data(text.utf8))
        }
    }
}

/// One object as a line of JSON: `{"entity": …, "id": …, "values": {…}, "relationships": {…}}`.
enum ObjectLine {
    static func encode(_ object: BinaryStoreFile.Object, entity: BinaryStoreFile.Entity) throws -> String {
        var relationships: [String: Any] = [:]
        for relationship in entity.relationships {
            var ids = object.relatedObjectIDs[relationship.name] ?? []
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
            "entity": entity.name,
            "id": object.objectID.uriRepresentation().absoluteString,
            "values": object.attributeValues.mapValues(\.jsonObject),
            "relationships": relationships,
        ]
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
