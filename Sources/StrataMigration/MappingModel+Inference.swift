import Foundation
import Strata

extension MappingModel {
    /// A mapping from `source` to `destination` by Core Data's lightweight rules, and more.
    ///
    /// Inferred: entities and properties added, removed, or renamed (through the destination's
    /// renaming identifier, which may name the source or share its identifier); non-optional →
    /// optional; optional → non-optional when there is a default value; to-one ↔ to-many and
    /// unordered ↔ ordered; new parents and children, properties moving up or down a hierarchy,
    /// entities leaving one. Beyond Core Data, lossless type widenings: Integer 16 → 32 → 64,
    /// Float → Double, integers → Decimal, any scalar → String. Refused: a lossy type change, a
    /// new required property without a default, two hierarchies merged into one (their
    /// reference numbers could collide), a relationship whose destination changed.
    ///
    /// - Throws: ``MigrationError`` with code `.cannotInfer`, listing every entity and property
    ///   that cannot be mapped and why, not just the first.
    public static func inferred(from source: ManagedObjectModel, to destination: ManagedObjectModel) throws -> MappingModel {
        try inferred(from: source, to: destination, except: [])
    }

    /// Infers the mappings of every destination entity not in `covered` (whose mappings the
    /// caller provides); problems of covered entities are not reported.
    static func inferred(
        from source: ManagedObjectModel, to destination: ManagedObjectModel, except covered: Set<String>
    ) throws -> MappingModel {
        var problems: [String] = []
        var mappings: [EntityMapping] = []
        var matched: [String: String] = [:]  // source entity → destination entity
        for entity in destination.entities {
            if let origin = Self.match(entity.name, entity.renamingIdentifier, in: source.entities.map { ($0.name, $0.renamingIdentifier) }) {
                matched[origin] = entity.name
            }
        }
        for entity in destination.entities where !entity.isAbstract || matched.values.contains(entity.name) {
            guard let origin = matched.first(where: { $0.value == entity.name })?.key, let sourceEntity = source.entity(named: origin) else {
                mappings.append(EntityMapping(kind: .add, source: nil, destination: entity.name))
                continue
            }
            let (attributes, relationships, entityProblems) = inferProperties(
                from: sourceEntity, to: entity, entityMap: matched, source: source, destination: destination)
            if !covered.contains(entity.name) { problems += entityProblems }
            let unchanged = origin == entity.name && sourceEntity.versionHash == entity.versionHash
            mappings.append(
                EntityMapping(
                    kind: unchanged ? .copy : .transform, source: origin, destination: entity.name,
                    attributeMappings: attributes, relationshipMappings: relationships))
        }
        for entity in source.entities where matched[entity.name] == nil {
            mappings.append(EntityMapping(kind: .remove, source: entity.name, destination: nil))
        }
        problems += hierarchyProblems(entityMap: matched, source: source, destination: destination)
        guard problems.isEmpty else {
            throw MigrationError(
                .cannotInfer, "cannot infer a mapping (\(problems.count) problem\(problems.count == 1 ? "" : "s"))", problems: problems)
        }
        return MappingModel(entityMappings: mappings)
    }

    /// The source name a destination element continues: by renaming identifier, else by name.
    static func match(_ name: String, _ identifier: String?, in candidates: [(String, String?)]) -> String? {
        if let identifier, let renamed = candidates.first(where: { $0.0 == identifier || $0.1 == identifier }) {
            return renamed.0
        }
        return candidates.first { $0.0 == name }?.0
    }

    private static func inferProperties(
        from source: EntityDescription, to destination: EntityDescription, entityMap: [String: String],
        source sourceModel: ManagedObjectModel, destination destinationModel: ManagedObjectModel
    ) -> ([PropertyMapping], [PropertyMapping], [String]) {
        var problems: [String] = []
        var attributes: [PropertyMapping] = []
        let sourceAttributes = Array(source.attributesByName.values)
        for attribute in destination.attributesByName.values.sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
            let place = "\(destination.name).\(attribute.name)"
            guard let origin = match(attribute.name, attribute.renamingIdentifier, in: sourceAttributes.map { ($0.name, $0.renamingIdentifier) }),
                let sourceAttribute = source.attributesByName[origin], !sourceAttribute.isTransient
            else {
                if !attribute.isOptional && attribute.defaultValue == nil {
                    problems.append("\(place): a new required attribute needs a default value")
                }
                continue
            }
            if !TypeConversion.isLossless(from: sourceAttribute.type, to: attribute.type) {
                problems.append("\(place): \(sourceAttribute.type.rawValue) → \(attribute.type.rawValue) would lose data")
            }
            if sourceAttribute.isOptional && !attribute.isOptional && attribute.defaultValue == nil {
                problems.append("\(place): it becomes required, and has no default value for objects without one")
            }
            attributes.append(.copy(attribute.name, from: origin))
        }
        var relationships: [PropertyMapping] = []
        let sourceRelationships = Array(source.relationshipsByName.values)
        for relationship in destination.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
            let place = "\(destination.name).\(relationship.name)"
            guard let origin = match(relationship.name, relationship.renamingIdentifier, in: sourceRelationships.map { ($0.name, $0.renamingIdentifier) }),
                let sourceRelationship = source.relationshipsByName[origin], !sourceRelationship.isTransient
            else {
                if !relationship.isOptional || relationship.minCount > 0 {
                    problems.append("\(place): a new required relationship cannot be filled in")
                }
                continue
            }
            let mappedDestination = entityMap[sourceRelationship.destinationEntityName]
            let hierarchy = Set(destinationHierarchy(of: relationship.destinationEntityName, in: destinationModel))
            if mappedDestination.map({ !hierarchy.contains($0) }) ?? true {
                problems.append(
                    "\(place): its destination changed from \(sourceRelationship.destinationEntityName) to \(relationship.destinationEntityName)")
            }
            if sourceRelationship.isOptional && !relationship.isOptional {
                problems.append("\(place): it becomes required, which objects without one would break")
            }
            relationships.append(.copy(relationship.name, from: origin))
        }
        return (attributes, relationships, problems)
    }

    /// An entity and every entity below it.
    static func destinationHierarchy(of name: String, in model: ManagedObjectModel) -> [String] {
        var names: [String] = []
        var pending = [name]
        while let next = pending.popLast() {
            names.append(next)
            pending += model.entity(named: next)?.subentityNames ?? []
        }
        return names
    }

    static func root(of name: String, in model: ManagedObjectModel) -> String {
        var current = name
        while let parent = model.entity(named: current)?.superentityName { current = parent }
        return current
    }

    /// Reference numbers are unique per hierarchy: two source hierarchies may not end in one.
    private static func hierarchyProblems(
        entityMap: [String: String], source: ManagedObjectModel, destination: ManagedObjectModel
    ) -> [String] {
        var sourceRoots: [String: Set<String>] = [:]
        for (origin, target) in entityMap {
            sourceRoots[root(of: target, in: destination), default: []].insert(root(of: origin, in: source))
        }
        return sourceRoots.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map { root, origins in
            "\(root): it would merge the hierarchies of \(origins.sorted().joined(separator: " and ")), whose reference numbers may collide"
        }
    }
}

/// Which attribute type changes keep every value.
enum TypeConversion {
    static func isLossless(from source: AttributeType, to destination: AttributeType) -> Bool {
        if source == destination { return true }
        switch (source, destination) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.float, .double): return true
        case (.integer16, .string), (.integer32, .string), (.integer64, .string), (.decimal, .string), (.double, .string),
            (.float, .string), (.boolean, .string), (.uuid, .string), (.uri, .string), (.date, .string):
            return true
        default: return false
        }
    }

    /// The value converted to `type` without loss; `nil` when it cannot be.
    static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue? {
        if value.type == type { return value }
        if let converted = value.converted(to: type) { return converted }
        guard type == .string else { return nil }
        switch value {
        case .integer16(let v): return .string("\(v)")
        case .integer32(let v): return .string("\(v)")
        case .integer64(let v): return .string("\(v)")
        case .decimal(let v): return .string("\(v)")
        case .double(let v): return .string("\(v)")
        case .float(let v): return .string("\(v)")
        case .boolean(let v): return .string(v ? "true" : "false")
        case .uuid(let v): return .string(v.uuidString)
        case .uri(let v): return .string(v.absoluteString)
        case .date(let v): return .string(v.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        default: return nil
        }
    }
}
