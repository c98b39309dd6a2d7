import ArgumentParser
import Foundation
import Strata

/// `strata query STORE --entity NAME [--where PREDICATE] [--sort KEY[:desc]]… [--limit N]`:
/// runs a fetch request on a store file and prints the objects.
struct QueryStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Fetch objects from a store with a predicate, sorted and limited.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @Argument(help: "A store file (binary or SQLite), or a postgres:// URL.")
    var store: String

    @Option(help: "The entity to fetch (its subentities too).")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in Core Data's format-string syntax.")
    var predicate: String?

    @Option(name: .customLong("sort"), help: "A key path to sort by, with :desc for descending; repeat for more keys.")
    var sortKeys: [String] = []

    @Option(help: "The most objects to print.")
    var limit: Int = 0

    @Option(help: "table or json (JSON Lines, as strata dump writes).")
    var format: Format = .table

    @Option(help: "The model (.xcdatamodel or .xcdatamodeld); by default, the one the store carries.")
    var model: String?

    func run() async throws {
        let url = try StoreFileKind.url(store)
        let model = try StoreFileKind.model(for: url, given: model)
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let predicate {
            request.predicate = try FetchPredicate(format: predicate)
        }
        request.sortDescriptors = sortKeys.map { key in
            key.hasSuffix(":desc") ? .descending(String(key.dropLast(5))) : .ascending(key.hasSuffix(":asc") ? String(key.dropLast(4)) : key)
        }
        request.fetchLimit = limit

        let (coordinator, added) = try await StoreFileKind.openReadOnly(url, model: model)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let (format, fetch) = (format, request)
        let lines = try await context.perform { context in
            let objects = try context.fetch(fetch)
            return try format == .json ? objects.map(ObjectRows.jsonLine) : ObjectRows.table(objects)
        }
        try await coordinator.removePersistentStore(added)
        for line in lines { print(line) }
    }
}

/// Objects as the query command prints them.
enum ObjectRows {
    static func jsonLine(_ object: ManagedObject) throws -> String {
        var values: [String: Any] = [:]
        var relationships: [String: Any] = [:]
        for attribute in object.entity.attributesByName.values {
            if let value = try object.primitiveAttributeValue(forKey: attribute.name) { values[attribute.name] = value.jsonObject }
        }
        for (name, value) in object.committedValues(forKeys: nil) where object.entity.relationshipsByName[name] != nil {
            switch value {
            case let id as ManagedObjectID: relationships[name] = id.uriRepresentation().absoluteString
            case let ids as [ManagedObjectID] where !ids.isEmpty: relationships[name] = ids.map { $0.uriRepresentation().absoluteString }
            default: break
            }
        }
        let line: [String: Any] = [
            "entity": object.entity.name, "id": object.objectID.uriRepresentation().absoluteString,
            "values": values, "relationships": relationships,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    /// A text table: the reference, then every attribute, then to-one relationships and to-many counts.
    static func table(_ objects: [ManagedObject]) throws -> [String] {
        guard let first = objects.first else { return ["(no objects)"] }
        let attributes = first.entity.attributesByName.keys.sorted()
        let relationships = first.entity.relationshipsByName.keys.sorted()
        var rows = [["id"] + attributes + relationships]
        for object in objects {
            var row = ["\(object.entity.name)/p\(object.objectID.referenceNumber ?? 0)"]
            for key in attributes {
                row.append(try object.primitiveAttributeValue(forKey: key).map { "\($0.anyValue)" } ?? "nil")
            }
            for key in relationships {
                switch try object.value(forKey: key) {
                case let related as ManagedObject: row.append("\(related.entity.name)/p\(related.objectID.referenceNumber ?? 0)")
                case let set as Set<ManagedObject>: row.append(counted(set.count, "object"))
                case let array as [ManagedObject]: row.append(counted(array.count, "object"))
                default: row.append("nil")
                }
            }
            rows.append(row)
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
    }
}
