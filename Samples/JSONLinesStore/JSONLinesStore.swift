import Foundation
import Strata

/// A human-readable atomic store: one JSON object per line, the metadata first. It is the proof
/// that `AtomicStore` works for a format of the user's own: it uses nothing but the public
/// subclass contract.
///
/// ```
/// {"metadata":{"StoreUUID":{"string":{"_0":"…"}},…}}
/// {"entity":"Book","reference":1,"version":2,"attributes":{"title":"Emma"},"relationships":{"author":["Author/1"]}}
/// ```
public final class JSONLinesStore: AtomicStore, @unchecked Sendable {
    // Sendable for the reason AtomicStore gives: the coordinator calls it on its queue only.

    /// The store type to register and add this store by.
    public static let storeType = StoreType(rawValue: "JSONLines")

    /// Registers the store class with the coordinator.
    public static func register() {
        PersistentStoreCoordinator.registerStoreClass(JSONLinesStore.self, forStoreType: storeType)
    }

    public override func load() throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        let lines = try Self.lines(at: fileURL)
        var nodes: Set<AtomicStoreCacheNode> = []
        for (number, line) in lines.enumerated().dropFirst() {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let entityName = object["entity"] as? String, let entity = model.entity(named: entityName),
                let reference = (object["reference"] as? NSNumber)?.int64Value
            else {
                throw StoreError(.corruptFile, file: fileURL, "line \(number + 1) is not an object of the model")
            }
            let node = AtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: reference))
            node.version = (object["version"] as? NSNumber)?.int64Value ?? 1
            for (key, json) in object["attributes"] as? [String: Any] ?? [:] {
                guard let attribute = entity.attributesByName[key] else { continue }
                node.attributeValues[key] = try Self.value(json, type: attribute.type)
            }
            for (key, targets) in object["relationships"] as? [String: [String]] ?? [:] {
                node.relatedObjectIDs[key] = targets.compactMap { target in
                    let parts = target.split(separator: "/")
                    guard parts.count == 2, let entity = model.entity(named: String(parts[0])), let number = Int64(parts[1]) else {
                        return nil
                    }
                    return objectID(for: entity, withReferenceObject: number)
                }
            }
            nodes.insert(node)
        }
        addCacheNodes(nodes)
    }

    public override func save() throws {
        var lines = [try Self.metadataLine(metadataForSaving)]
        for node in cacheNodes().sorted(by: { ($0.objectID.entityName, referenceObject(for: $0.objectID) ?? 0) < ($1.objectID.entityName, referenceObject(for: $1.objectID) ?? 0) }) {
            let object: [String: Any] = [
                "entity": node.objectID.entityName,
                "reference": referenceObject(for: node.objectID) ?? 0,
                "version": node.version,
                "attributes": node.attributeValues.mapValues(Self.json),
                "relationships": node.relatedObjectIDs.mapValues { ids in
                    ids.map { "\($0.entityName)/\($0.referenceNumber ?? 0)" }
                },
            ]
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: fileURL, options: .atomic)
    }

    public override class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        guard let first = try lines(at: url).first else { return [:] }
        struct Line: Decodable { var metadata: [String: MetadataValue] }
        return try JSONDecoder().decode(Line.self, from: Data(first.utf8)).metadata
    }

    public override class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {
        var lines = try lines(at: url)
        var merged = metadata
        let old = try metadataForPersistentStore(at: url)
        merged[PersistentStore.storeUUIDKey] = old[PersistentStore.storeUUIDKey]
        merged["StoreNextReferences"] = old["StoreNextReferences"]
        let line = try metadataLine(merged)
        if lines.isEmpty { lines = [line] } else { lines[0] = line }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url, options: .atomic)
    }

    /// Dates as seconds since 2001, so that they keep every bit (ISO 8601 stops at milliseconds);
    /// every other value in the form `strata dump` writes.
    private static func json(_ value: AttributeValue) -> Any {
        if case .date(let date) = value { return date.timeIntervalSinceReferenceDate }
        return value.jsonObject
    }

    private static func value(_ json: Any, type: AttributeType) throws -> AttributeValue {
        if type == .date, let seconds = json as? Double { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
        return try AttributeValue(jsonObject: json, type: type)
    }

    private static func metadataLine(_ metadata: [String: MetadataValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(["metadata": metadata]), as: UTF8.self)
    }

    private static func lines(at url: URL) throws -> [String] {
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }
}
