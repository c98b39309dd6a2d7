import Foundation

/// Checks a list of entities and resolves what they inherit and who inherits from them.
struct ModelResolver {
    private var declared: [EntityDescription]
    private var byName: [String: EntityDescription] = [:]
    /// Every entity's version hash, once resolved.
    private(set) var versionHashes: [String: Data] = [:]
    /// Every entity's hash as Strata computed it before it used Core Data's (see
    /// `LegacyVersionHash.swift`), to recognise stores written then.
    private(set) var legacyVersionHashes: [String: Data] = [:]
    /// The hashes of each entity's own stored properties (not inherited ones), by entity.
    private var ownPropertyHashes: [String: [String: Data]] = [:]

    init(entities: [EntityDescription]) {
        declared = entities
    }

    mutating func resolve() throws -> [EntityDescription] {
        try adoptDeclaredSubentities()
        for entity in declared {
            guard byName[entity.name] == nil else {
                throw ModelError(.duplicateEntity, entity: entity.name, "the model has two entities with this name")
            }
            byName[entity.name] = entity
        }
        var resolved: [EntityDescription] = []
        for var entity in declared {
            for index in entity.attributes.indices {
                try normalizeValues(of: &entity.attributes[index], in: entity)
            }
            let ancestors = try ancestors(of: entity)
            // An entity taken from another model comes with what it inherited there: this
            // model's ancestors decide anew.
            entity.inheritedAttributes = []
            entity.inheritedRelationships = []
            for ancestor in ancestors.reversed() {
                entity.inheritedAttributes += ancestor.attributes
                entity.inheritedRelationships += ancestor.relationships
            }
            entity.subentityNames = declared.filter { $0.superentityName == entity.name }.map(\.name)
            entity.declaredSubentityNames = nil
            try checkPropertyNames(of: entity)
            resolved.append(entity)
        }
        let resolvedByName = Dictionary(uniqueKeysWithValues: resolved.map { ($0.name, $0) })
        for entity in resolved {
            try checkRelationships(of: entity, in: resolvedByName)
            try checkConstraintsAndIndexes(of: entity)
            for fetched in entity.fetchedProperties where resolvedByName[fetched.destinationEntityName] == nil {
                throw ModelError(
                    .unknownDestination, entity: entity.name, property: fetched.name,
                    "the fetched property's entity '\(fetched.destinationEntityName)' is not in the model")
            }
        }
        for entity in resolved {
            ownPropertyHashes[entity.name] = hashesOfOwnProperties(of: entity, in: resolvedByName)
        }
        for index in resolved.indices {
            let name = resolved[index].name
            resolved[index].resolvedVersionHash = versionHash(of: name)
            resolved[index].resolvedLegacyVersionHash = legacyVersionHash(of: name)
            resolved[index].resolvedPropertyHashes = propertyHashes(of: name)
            if let parent = resolved[index].superentityName {
                resolved[index].resolvedSuperentityHash = versionHash(of: parent)
                resolved[index].resolvedInheritedPropertyHashes = propertyHashes(of: parent)
            }
        }
        return resolved
    }

    /// Core Data's mutable API builds a hierarchy by setting a parent's `subentities`: each
    /// child named there takes the parent, unless it names another (a model error). A child
    /// the model does not have is left out, as it is from the model.
    private mutating func adoptDeclaredSubentities() throws {
        let positions = Dictionary(declared.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        for parent in declared {
            for childName in parent.declaredSubentityNames ?? [] {
                guard let position = positions[childName] else { continue }
                switch declared[position].superentityName {
                case nil: declared[position].superentityName = parent.name
                case parent.name?: break
                case let other?:
                    throw ModelError(
                        .unknownSuperentity, entity: childName,
                        "'\(parent.name)' lists it among its subentities, but it names '\(other)' as its parent")
                }
            }
        }
    }

    /// The hashes of an entity's own stored properties. A relationship is hashed where it is
    /// declared, so a subentity inherits its hash unchanged.
    private func hashesOfOwnProperties(of entity: EntityDescription, in entities: [String: EntityDescription]) -> [String: Data] {
        var hashes: [String: Data] = [:]
        for attribute in entity.attributes where !attribute.isTransient {
            hashes[attribute.name] = attribute.versionHash
        }
        let lineage = Set([entity.name] + ((try? ancestors(of: entity)) ?? []).map(\.name))
        for relationship in entity.relationships where !relationship.isTransient {
            // Its own inverse: the destination is in the same line of inheritance and the inverse
            // has the relationship's name, so it can only be this very relationship.
            let destinationLineage = entities[relationship.destinationEntityName].map {
                Set([$0.name] + ((try? ancestors(of: $0)) ?? []).map(\.name))
            } ?? []
            let isOwnInverse = relationship.inverseName == relationship.name
                && (lineage.contains(relationship.destinationEntityName) || destinationLineage.contains(entity.name))
            hashes[relationship.name] = relationship.versionHash(isOwnInverse: isOwnInverse)
        }
        return hashes
    }

    /// The hashes of every stored property of an entity, inherited ones included.
    private func propertyHashes(of name: String) -> [String: Data] {
        guard let entity = byName[name] else { return [:] }
        let inherited = entity.superentityName.map { propertyHashes(of: $0) } ?? [:]
        return inherited.merging(ownPropertyHashes[name] ?? [:]) { _, own in own }
    }

    /// The version hash of an entity, after its ancestors' (the model has no cycles by now).
    private mutating func versionHash(of name: String) -> Data {
        if let hash = versionHashes[name] { return hash }
        guard let entity = byName[name] else { return Data() }
        let parentHash = entity.superentityName.map { versionHash(of: $0) }
        let hash = entity.computeVersionHash(superentityHash: parentHash, propertyHashes: propertyHashes(of: name))
        versionHashes[name] = hash
        return hash
    }

    private mutating func legacyVersionHash(of name: String) -> Data {
        if let hash = legacyVersionHashes[name] { return hash }
        guard let entity = byName[name] else { return Data() }
        let parentHash = entity.superentityName.map { legacyVersionHash(of: $0) }
        let hash = entity.computeLegacyVersionHash(superentityHash: parentHash)
        legacyVersionHashes[name] = hash
        return hash
    }

    /// Checks that configurations and fetch request templates name entities of the model.
    func checkConfigurations(_ configurations: [String: [String]], templates: [FetchRequestTemplate]) throws {
        for (configuration, members) in configurations {
            for member in members where byName[member] == nil {
                throw ModelError(
                    .unknownDestination, entity: member, "the configuration '\(configuration)' names an entity the model does not have")
            }
        }
        for template in templates where byName[template.entityName] == nil {
            throw ModelError(
                .unknownDestination, entity: template.entityName,
                "the fetch request template '\(template.name)' names an entity the model does not have")
        }
    }

    /// The entity's ancestors, nearest first.
    private func ancestors(of entity: EntityDescription) throws -> [EntityDescription] {
        var chain: [EntityDescription] = []
        var seen: Set<String> = [entity.name]
        var next = entity.superentityName
        while let name = next {
            guard let parent = byName[name] else {
                throw ModelError(.unknownSuperentity, entity: entity.name, "its parent entity '\(name)' is not in the model")
            }
            guard seen.insert(name).inserted else {
                throw ModelError(.inheritanceCycle, entity: entity.name, "the entity inherits from itself through '\(name)'")
            }
            chain.append(parent)
            next = parent.superentityName
        }
        return chain
    }

    private func checkPropertyNames(of entity: EntityDescription) throws {
        var names: Set<String> = []
        let all = (entity.inheritedAttributes + entity.attributes).map(\.name)
            + (entity.inheritedRelationships + entity.relationships).map(\.name)
        for name in all where !names.insert(name).inserted {
            throw ModelError(
                .duplicateProperty, entity: entity.name, property: name,
                "two properties have this name (a subentity cannot redeclare an inherited property)")
        }
    }

    private func checkRelationships(
        of entity: EntityDescription, in entities: [String: EntityDescription]
    ) throws {
        for relationship in entity.relationships {
            guard let destination = entities[relationship.destinationEntityName] else {
                throw ModelError(
                    .unknownDestination, entity: entity.name, property: relationship.name,
                    "its destination entity '\(relationship.destinationEntityName)' is not in the model")
            }
            // A negative maximum means no maximum, as 0 does: models built in code write -1.
            if relationship.minCount < 0 || (relationship.maxCount > 0 && relationship.minCount > relationship.maxCount)
            {
                throw ModelError(
                    .invalidValue, entity: entity.name, property: relationship.name,
                    "its minimum count \(relationship.minCount) and maximum count \(relationship.maxCount) do not fit together")
            }
            guard let inverseName = relationship.inverseName else { continue }
            guard let inverse = destination.relationshipsByName[inverseName] else {
                throw ModelError(
                    .badInverse, entity: entity.name, property: relationship.name,
                    "its inverse '\(inverseName)' is not a relationship of '\(destination.name)'")
            }
            let sourceLineage = Set([entity.name] + ((try? ancestors(of: entity)) ?? []).map(\.name))
            guard sourceLineage.contains(inverse.destinationEntityName),
                inverse.inverseName == nil || inverse.inverseName == relationship.name
            else {
                throw ModelError(
                    .badInverse, entity: entity.name, property: relationship.name,
                    "its inverse '\(destination.name).\(inverseName)' does not point back to it")
            }
        }
    }

    private func checkConstraintsAndIndexes(of entity: EntityDescription) throws {
        let known = Set(entity.attributesByName.keys).union(entity.relationshipsByName.keys)
        let named = entity.uniquenessConstraints.flatMap { $0 }
            + entity.indexes.flatMap { $0.elements.filter { $0.expression == nil }.map(\.propertyName) }
        for name in named where !known.contains(name) {
            throw ModelError(
                .unknownProperty, entity: entity.name, property: name,
                "a uniqueness constraint or fetch index names a property the entity does not have")
        }
    }

    /// Converts the default value and bounds to the attribute's type (a literal `0` to
    /// Integer 16, say), refusing any that do not convert, and checks its pattern compiles.
    private func normalizeValues(of attribute: inout AttributeDescription, in entity: EntityDescription) throws {
        func fail(_ message: String) -> ModelError {
            ModelError(.invalidValue, entity: entity.name, property: attribute.name, message)
        }
        let type = attribute.type
        if type == .undefined, !attribute.isTransient {
            throw fail("its type is Undefined, which only a transient attribute may have (as in Core Data)")
        }
        if type == .composite {
            guard !attribute.compositeElements.isEmpty else { throw fail("it is a composite with no elements") }
            guard attribute.defaultValue == nil else { throw fail("a composite attribute cannot have a default value") }
            for index in attribute.compositeElements.indices {
                try normalizeValues(of: &attribute.compositeElements[index], in: entity)
            }
        }
        func normalized(_ value: AttributeValue?, _ role: String) throws -> AttributeValue? {
            guard let value else { return nil }
            guard let converted = value.converted(to: type) else {
                throw fail("its \(role) is a \(value.type.rawValue) value, not a \(type.rawValue) one")
            }
            return converted
        }
        attribute.defaultValue = try normalized(attribute.defaultValue, "default value")
        attribute.minimumValue = try normalized(attribute.minimumValue, "minimum")
        attribute.maximumValue = try normalized(attribute.maximumValue, "maximum")
        if let pattern = attribute.regularExpression {
            guard type == .string else { throw fail("a regular expression only applies to a String attribute") }
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw fail("its regular expression '\(pattern)' does not compile")
            }
        }
    }
}
