import Foundation
import Strata

/// One object of an import file, checked against the model.
struct ImportRecord: Sendable {
    let line: Int
    let entity: String
    let id: String
    let values: [String: AttributeValue]
    /// Relationship name → the file-local ids of its objects.
    let relationships: [String: [String]]

    /// Parses and checks every line; the first bad one throws with its line number.
    static func parse(_ data: Data, model: ManagedObjectModel, file: String) throws -> [ImportRecord] {
        var records: [ImportRecord] = []
        var ids: Set<String> = []
        for (index, text) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            func fail(_ message: String) -> ImportFailure { ImportFailure(line: line, file: file, message: message) }
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw fail("not a JSON object")
            }
            guard let entityName = object["entity"] as? String else { throw fail("no \"entity\"") }
            guard let entity = model.entity(named: entityName), !entity.isAbstract else {
                throw fail("the model has no (concrete) entity '\(entityName)'")
            }
            guard let id = object["id"] as? String, !id.isEmpty else { throw fail("no \"id\"") }
            guard ids.insert(id).inserted else { throw fail("the id '\(id)' is used twice") }
            var values: [String: AttributeValue] = [:]
            let attributes = entity.attributesByName
            for (key, json) in object["values"] as? [String: Any] ?? [:] {
                guard let attribute = attributes[key] else { throw fail("\(entityName) has no attribute '\(key)'") }
                guard !(json is NSNull) else { continue }
                do {
                    values[key] = try AttributeValue(jsonObject: json, for: attribute)
                } catch {
                    throw fail("\(entityName).\(key): \((error as? ValidationError)?.message ?? "\(error)")")
                }
            }
            var relationships: [String: [String]] = [:]
            let declared = entity.relationshipsByName
            for (key, json) in object["relationships"] as? [String: Any] ?? [:] {
                guard let relationship = declared[key] else { throw fail("\(entityName) has no relationship '\(key)'") }
                switch json {
                case let single as String where !relationship.isToMany: relationships[key] = [single]
                case let many as [String] where relationship.isToMany: relationships[key] = many
                case is NSNull: continue
                default:
                    throw fail("\(entityName).\(key) takes \(relationship.isToMany ? "an array of ids" : "one id")")
                }
            }
            records.append(ImportRecord(line: line, entity: entityName, id: id, values: values, relationships: relationships))
        }
        for record in records {
            for (key, targets) in record.relationships {
                for target in targets where !ids.contains(target) {
                    throw ImportFailure(line: record.line, file: file, message: "\(record.entity).\(key) refers to '\(target)', which no line defines")
                }
            }
        }
        return records
    }

    /// Inserts the records' objects, relates them, and saves once.
    static func insert(_ records: [ImportRecord], into context: isolated ManagedObjectContext, file: String) throws -> Int {
        var objects: [String: ManagedObject] = [:]
        for record in records {
            let object = try context.insertNewObject(forEntityName: record.entity)
            for (key, value) in record.values {
                do {
                    try object.setPrimitiveValue(value, forKey: key)
                } catch {
                    throw ImportFailure(line: record.line, file: file, message: "\(error)")
                }
            }
            objects[record.id] = object
        }
        for record in records {
            guard let object = objects[record.id] else { continue }
            for (key, targets) in record.relationships {
                let related = targets.compactMap { objects[$0] }
                let relationship = object.entity.relationshipsByName[key]
                do {
                    if relationship?.isToMany == true {
                        try object.setValue(relationship?.isOrdered == true ? related as Any : Set(related) as Any, forKey: key)
                    } else {
                        try object.setValue(related.first, forKey: key)
                    }
                } catch {
                    throw ImportFailure(line: record.line, file: file, message: "\(error)")
                }
            }
        }
        do {
            try context.save()
        } catch {
            context.rollback()
            throw ImportFailure(line: nil, file: file, message: "the objects do not save: \(error)")
        }
        return records.count
    }
}
