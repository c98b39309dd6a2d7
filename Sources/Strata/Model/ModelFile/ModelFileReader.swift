import Foundation
import StrataFileFormats

/// Reads the `contents` file of an Xcode `.xcdatamodel` into a model.
///
/// Everything Xcode writes is understood. What Strata has no use for is passed over on
/// purpose: the diagram layout (`elements`), `syncable`, Spotlight and truth-file flags and the
/// tool versions. Legacy forms are converted: `compoundIndexes` become fetch indexes. Values
/// that Core Data coerces are coerced the same way, and each coercion is recorded in the
/// model's ``ManagedObjectModel/fileNotes`` (see ``ModelFileValues``).
struct ModelFileReader {
    let file: URL
    /// What was coerced so far, for ``ManagedObjectModel/fileNotes``.
    private let notes = NoteList()

    init(file: URL) {
        self.file = file
    }

    /// Collects notes from the value parsers while a file is read.
    final class NoteList {
        var notes: [String] = []
    }

    func read(_ data: Data) throws -> ManagedObjectModel {
        let root = try XMLNode.parse(data, file: file)
        guard root.name == "model" else {
            throw ModelFileError(.notAModel, file: file, line: root.line, "the root element is <\(root.name)>, not <model>")
        }
        // Xcode writes composites at the model level and refers to them by name.
        var composites: [String: XMLNode] = [:]
        for node in root.children(named: "composite") {
            composites[try required(node, "name")] = node
        }
        var entityLines: [String: Int] = [:]
        let entities = try root.children(named: "entity").map { node in
            let entity = try readEntity(node, composites: composites)
            entityLines[entity.name] = node.line
            return entity
        }
        var configurations: [String: [String]] = [:]
        for node in root.children(named: "configuration") {
            let name = try required(node, "name")
            configurations[name] = try node.children(named: "memberEntity").map { try required($0, "name") }
        }
        let templates = try root.children(named: "fetchRequest").map { node in
            FetchRequestTemplate(
                name: try required(node, "name"), entityName: try required(node, "entity"),
                predicateFormat: node["predicateString"])
        }
        let identifiers = root["userDefinedModelVersionIdentifier"].map { Set([$0]) } ?? []
        do {
            return try ManagedObjectModel(
                entities: entities, versionIdentifiers: identifiers, configurations: configurations,
                fetchRequestTemplates: templates
            ).withFileNotes(notes.notes)
        } catch let error as ModelError {
            throw ModelFileError(.invalidModel, file: file, line: entityLines[error.entity], error.description, modelError: error)
        }
    }

    private func readEntity(_ node: XMLNode, composites: [String: XMLNode]) throws -> EntityDescription {
        var entity = EntityDescription(
            name: try required(node, "name"), superentity: node["parentEntity"], isAbstract: node.flag("isAbstract"),
            renamingIdentifier: node["elementID"], versionHashModifier: node["versionHashModifier"],
            userInfo: userInfo(of: node))
        if let className = node["representedClassName"] { entity.managedObjectClassName = className }
        entity.codeGenerationType = node["codeGenerationType"]
        for child in node.children {
            switch child.name {
            case "attribute": entity.attributes.append(try readAttribute(child, in: entity.name, composites: composites))
            case "relationship": entity.relationships.append(try readRelationship(child))
            case "fetchedProperty": entity.fetchedProperties.append(try readFetchedProperty(child))
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    entity.uniquenessConstraints.append(try constraint.children(named: "constraint").map { try required($0, "value") })
                }
            case "fetchIndex": entity.indexes.append(try readFetchIndex(child))
            case "compoundIndexes":
                for (number, compound) in child.children(named: "compoundIndex").enumerated() {
                    let names = try compound.children(named: "index").map { try required($0, "value") }
                    var index = FetchIndexDescription(name: "compoundIndex\(number + 1)", elements: names.map { .init($0) })
                    index.isCompoundIndex = true
                    entity.indexes.append(index)
                }
            default: continue
            }
        }
        return entity
    }

    private func readAttribute(
        _ node: XMLNode, in entity: String, composites: [String: XMLNode], enclosing: Set<String> = []
    ) throws -> AttributeDescription {
        let name = try required(node, "name")
        // Xcode writes no type for "Undefined", which a transient attribute may have.
        let typeName = node["attributeType"] ?? AttributeType.undefined.rawValue
        guard let type = AttributeType(rawValue: typeName) else {
            throw ModelFileError(
                .unknownAttributeType, file: file, line: node.line,
                "attribute '\(name)' has the unknown type '\(typeName)' (known: "
                    + AttributeType.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        var attribute = AttributeDescription(
            name: name, type: type, isOptional: node.flag("optional"), isTransient: node.flag("transient"),
            regularExpression: node["regularExpressionString"], renamingIdentifier: node["elementID"],
            versionHashModifier: node["versionHashModifier"], userInfo: userInfo(of: node))
        if type == .composite {
            let compositeName = node["composite"]
            // The elements: the model-level <composite> it names, or <attribute> children of its own.
            let source = try compositeName.map { composite in
                guard let definition = composites[composite] else {
                    throw ModelFileError(
                        .invalidValue, file: file, line: node.line,
                        "attribute '\(name)' names the composite '\(composite)', which the model does not define")
                }
                guard !enclosing.contains(composite) else {
                    throw ModelFileError(.invalidValue, file: file, line: node.line, "the composite '\(composite)' contains itself")
                }
                return definition
            } ?? node
            attribute.compositeName = compositeName
            attribute.compositeElements = try source.children(named: "attribute").map {
                try readAttribute($0, in: entity, composites: composites, enclosing: enclosing.union(compositeName.map { [$0] } ?? []))
            }
        }
        let values = ModelFileValues(file: file, node: node, entity: entity, attribute: name, type: type, notes: notes)
        attribute.defaultValue = try values.defaultValue()
        if type == .string || type == .binaryData {
            attribute.minimumLength = try values.length("minValueString")
            attribute.maximumLength = try values.length("maxValueString")
        } else {
            attribute.minimumValue = try values.bound("minValueString", dateKey: "minDateTimeInterval")
            attribute.maximumValue = try values.bound("maxValueString", dateKey: "maxDateTimeInterval")
        }
        attribute.usesScalarValueType = node.flag("usesScalarValueType")
        attribute.allowsExternalBinaryDataStorage = node.flag("allowsExternalBinaryDataStorage")
        attribute.valueTransformerName = node["valueTransformerName"]
        attribute.attributeValueClassName = node["customClassName"]
        attribute.isIndexed = node.flag("indexed")
        attribute.derivationExpression = node.flag("derived") ? node["derivationExpression"] ?? "" : nil
        attribute.preservesValueInHistoryOnDeletion = node.flag("preserveAfterDeletion")
        return attribute
    }

    private func readRelationship(_ node: XMLNode) throws -> RelationshipDescription {
        let name = try required(node, "name")
        let rule = node["deletionRule"] ?? DeleteRule.nullify.rawValue
        guard let deleteRule = DeleteRule(rawValue: rule) else {
            throw ModelFileError(
                .invalidValue, file: file, line: node.line, "relationship '\(name)' has the unknown deletion rule '\(rule)'")
        }
        // Counts are kept as the file gives them, a to-one's minimum included (older Xcode
        // versions write minCount="1" on optional to-ones): Core Data's version hash covers
        // them. A to-one's maximum is 1 whatever the file says.
        func count(_ key: String) throws -> Int {
            guard let text = node[key] else { return 0 }
            guard let count = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ModelFileError(.invalidValue, file: file, line: node.line, "relationship '\(name)' has \(key)=\"\(text)\"")
            }
            return count
        }
        // Core Data's relationship is to-many when its maximum count is not 1
        // (`NSRelationshipDescription.isToMany`): a relationship Xcode marks `toMany="YES"` with
        // `maxCount="1"` is a to-one, and an `ordered="YES"` Xcode left on a to-one orders nothing.
        let isToMany = try node.flag("toMany") && count("maxCount") != 1
        return RelationshipDescription(
            name: name, destination: try required(node, "destinationEntity"), inverse: node["inverseName"],
            isToMany: isToMany, isOrdered: isToMany && node.flag("ordered"), deleteRule: deleteRule,
            isOptional: node.flag("optional"), minCount: try count("minCount"), maxCount: isToMany ? try count("maxCount") : 0,
            isTransient: node.flag("transient"), renamingIdentifier: node["elementID"],
            versionHashModifier: node["versionHashModifier"], userInfo: userInfo(of: node))
    }

    private func readFetchedProperty(_ node: XMLNode) throws -> FetchedPropertyDescription {
        let name = try required(node, "name")
        guard let request = node.child(named: "fetchRequest") else {
            throw ModelFileError(.missingAttribute, file: file, line: node.line, "fetched property '\(name)' has no <fetchRequest>")
        }
        return FetchedPropertyDescription(
            name: name, destination: try required(request, "entity"), predicateFormat: request["predicateString"],
            isOptional: node.flag("optional"), userInfo: userInfo(of: node))
    }

    private func readFetchIndex(_ node: XMLNode) throws -> FetchIndexDescription {
        let elements = try node.children(named: "fetchIndexElement").map { element in
            let ascending = element["order"] != "descending"
            var result: FetchIndexDescription.Element
            if let property = element["property"] {
                result = .init(property, ascending: ascending)
            } else if let expression = element["expression"] {
                result = .init(expression: expression, ascending: ascending)
            } else {
                throw ModelFileError(
                    .missingAttribute, file: file, line: element.line, "a fetch index element names no property or expression")
            }
            result.isRTree = element["type"] == "RTree"
            return result
        }
        return FetchIndexDescription(name: try required(node, "name"), elements: elements)
    }

    private func userInfo(of node: XMLNode) -> [String: String] {
        var info: [String: String] = [:]
        for entry in node.child(named: "userInfo")?.children(named: "entry") ?? [] {
            if let key = entry["key"] { info[key] = entry["value"] ?? "" }
        }
        return info
    }

    private func required(_ node: XMLNode, _ attribute: String) throws -> String {
        guard let value = node[attribute] else {
            throw ModelFileError(
                .missingAttribute, file: file, line: node.line, "<\(node.name)> has no '\(attribute)' attribute")
        }
        return value
    }
}
