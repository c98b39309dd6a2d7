import Foundation
import Strata

/// What `strata models show` prints: a model as plain data, for text or JSON.
struct ModelSummary: Encodable {
    struct Entity: Encodable {
        var name: String
        var className: String
        var parent: String?
        var subentities: [String]
        var isAbstract: Bool
        var renamingIdentifier: String?
        var versionHash: String
        var attributes: [Attribute]
        var relationships: [Relationship]
        var uniquenessConstraints: [[String]]
        var indexes: [Index]
    }

    struct Attribute: Encodable {
        var name: String
        var type: String
        /// A composite's elements, in the same form.
        var elements: [Attribute]?
        var isOptional: Bool
        var isTransient: Bool
        var defaultValue: String?
        var renamingIdentifier: String?
        var versionHash: String
    }

    struct Relationship: Encodable {
        var name: String
        var destination: String
        var inverse: String?
        var cardinality: String
        var isOrdered: Bool
        var isOptional: Bool
        var deleteRule: String
        var minCount: Int
        var maxCount: Int
        var renamingIdentifier: String?
        var versionHash: String
    }

    struct Index: Encodable {
        var name: String
        var elements: [String]
    }

    var name: String
    var versions: [String]?
    var currentVersion: String?
    var versionIdentifiers: [String]
    /// Core Data's `NSStoreModelVersionHashesDigest` and `NSStoreModelVersionChecksumKey`, in hex.
    var versionHashesDigest: String
    var versionChecksum: String
    var configurations: [String: [String]]
    var entities: [Entity]
    /// What the model file's reader coerced, as Core Data does.
    var coerced: [String]

    init(name: String, model: ManagedObjectModel, versions: [String]?, currentVersion: String?) {
        self.name = name
        self.versions = versions
        self.currentVersion = currentVersion
        versionIdentifiers = model.versionIdentifiers.sorted()
        versionHashesDigest = Self.hex(model.versionHashesDigest)
        versionChecksum = Self.hex(model.versionChecksum)
        configurations = model.configurations
        coerced = model.fileNotes
        entities = model.entities.sorted { $0.name < $1.name }.map { entity in
            Entity(
                name: entity.name, className: entity.managedObjectClassName, parent: entity.superentityName,
                subentities: entity.subentityNames, isAbstract: entity.isAbstract, renamingIdentifier: entity.renamingIdentifier,
                versionHash: Self.hex(entity.versionHash),
                attributes: entity.attributes.sorted { $0.name < $1.name }.map { attribute in
                    Self.attribute(attribute, hash: entity.propertyVersionHashes[attribute.name])
                },
                relationships: entity.relationships.sorted { $0.name < $1.name }.map { relationship in
                    Relationship(
                        name: relationship.name, destination: relationship.destinationEntityName,
                        inverse: relationship.inverseName, cardinality: relationship.isToMany ? "to-many" : "to-one",
                        isOrdered: relationship.isOrdered, isOptional: relationship.isOptional,
                        deleteRule: relationship.deleteRule.rawValue, minCount: relationship.minCount,
                        maxCount: relationship.maxCount, renamingIdentifier: relationship.renamingIdentifier,
                        versionHash: Self.hex(entity.propertyVersionHashes[relationship.name] ?? Data()))
                },
                uniquenessConstraints: entity.uniquenessConstraints,
                indexes: entity.indexes.map { index in
                    Index(
                        name: index.name,
                        elements: index.elements.map { ($0.expression ?? $0.propertyName) + ($0.isAscending ? "" : " desc") })
                })
        }
    }

    static func attribute(_ attribute: AttributeDescription, hash: Data? = nil) -> Attribute {
        Attribute(
            name: attribute.name, type: attribute.type.rawValue,
            elements: attribute.type == .composite ? attribute.compositeElements.sorted { $0.name < $1.name }.map { Self.attribute($0) } : nil,
            isOptional: attribute.isOptional, isTransient: attribute.isTransient,
            defaultValue: attribute.defaultValue.map { "\($0.anyValue)" }, renamingIdentifier: attribute.renamingIdentifier,
            versionHash: hex(hash ?? attribute.versionHash))
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    /// The summary as indented text.
    var text: String {
        var lines: [String] = []
        lines.append("Model \(name)" + (versionIdentifiers.isEmpty ? "" : " (version identifier \(versionIdentifiers.joined(separator: ", ")))"))
        if let versions {
            lines.append("Versions (oldest first): " + versions.map { $0 == currentVersion ? "\($0) [current]" : $0 }.joined(separator: ", "))
        }
        lines.append("Version hashes digest \(versionHashesDigest)")
        lines.append("Version checksum \(versionChecksum)")
        for (configuration, members) in configurations.sorted(by: { $0.key < $1.key }) {
            lines.append("Configuration \(configuration): \(members.joined(separator: ", "))")
        }
        for entity in entities {
            var heading = "Entity \(entity.name)"
            if let parent = entity.parent { heading += " : \(parent)" }
            if entity.isAbstract { heading += " (abstract)" }
            if entity.className != entity.name { heading += " class \(entity.className)" }
            if let renamed = entity.renamingIdentifier { heading += " renamed from \(renamed)" }
            lines.append("")
            lines.append(heading)
            lines.append("  hash \(entity.versionHash)")
            if !entity.subentities.isEmpty { lines.append("  subentities: \(entity.subentities.joined(separator: ", "))") }
            for attribute in entity.attributes {
                Self.describe(attribute, indent: "  ", into: &lines)
            }
            for relationship in entity.relationships {
                var traits = [relationship.cardinality + (relationship.isOrdered ? " ordered" : "")]
                traits.append(relationship.isOptional ? "optional" : "required")
                if relationship.cardinality == "to-many", relationship.minCount > 0 || relationship.maxCount > 0 {
                    traits.append("count \(relationship.minCount)…\(relationship.maxCount > 0 ? String(relationship.maxCount) : "")")
                }
                traits.append("delete rule \(relationship.deleteRule)")
                if let inverse = relationship.inverse { traits.append("inverse \(inverse)") }
                if let renamed = relationship.renamingIdentifier { traits.append("renamed from \(renamed)") }
                lines.append("  \(relationship.name) → \(relationship.destination) (\(traits.joined(separator: ", ")))")
            }
            for constraint in entity.uniquenessConstraints {
                lines.append("  unique (\(constraint.joined(separator: ", ")))")
            }
            for index in entity.indexes {
                lines.append("  index \(index.name) (\(index.elements.joined(separator: ", ")))")
            }
        }
        if !coerced.isEmpty {
            lines.append("")
            lines.append("Coerced as Core Data does:")
            lines += coerced.map { "  \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ attribute: Attribute, indent: String, into lines: inout [String]) {
        var traits = [attribute.isOptional ? "optional" : "required"]
        if attribute.isTransient { traits.append("transient") }
        if let value = attribute.defaultValue { traits.append("default \(value)") }
        if let renamed = attribute.renamingIdentifier { traits.append("renamed from \(renamed)") }
        lines.append("\(indent)\(attribute.name): \(attribute.type) (\(traits.joined(separator: ", ")))")
        for element in attribute.elements ?? [] {
            describe(element, indent: indent + "  ", into: &lines)
        }
    }
}
