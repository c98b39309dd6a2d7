import Foundation

extension MappingModel {
    /// A mapping from `source` to `destination` by Core Data's lightweight rules
    /// (`formats/coredata-lightweight-migration.md`, whose sections the rules below cite).
    ///
    /// Inferred, as Core Data infers them: entities and properties added, removed, or renamed
    /// (through the destination's renaming identifier, which may name the source or share its
    /// identifier) (§2); a property becoming optional, or required with or without a default,
    /// and a new required property with or without a default (§3, §5); to-one → to-many and
    /// unordered ↔ ordered (§5); any change between Integer 16, 32 and 64, Decimal, Double,
    /// Float and Boolean (§4); Binary ↔ Transformable when the destination's `userInfo` has
    /// `NSMigrationAllowTypeTransformation` and no external storage is involved (§4); new
    /// parents and children, properties moving up or down a hierarchy, entities leaving one
    /// (§2). Beyond Core Data, a scalar becoming a String (its text). Whether a store then
    /// migrates is for its data to decide (§3, §5): the ``MigrationManager`` fills a newly
    /// required attribute's empty values with its default, and fails, writing nothing, when a
    /// newly required value without a default is missing in some object.
    ///
    /// The entity mappings are named as Core Data names them (`IEM_Copy_Department`,
    /// `IEM_Transform_Employee`, `IEM_Add_…`, `IEM_Remove_…`), and every destination attribute has
    /// a property mapping (a new one's, without a value, gives its default).
    ///
    /// Refused, each naming the change: an incompatible type change (String ↔ a number, Date ↔
    /// Double, anything with Undefined…) (§4); external binary storage moved into the store
    /// (§4); a to-many becoming a to-one (§5); two hierarchies merged into one, whose reference
    /// numbers could collide (§2); a relationship whose destination changed.
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
                mappings.append(EntityMapping(kind: .add, source: nil, destination: entity.name, name: "IEM_Add_\(entity.name)"))
                continue
            }
            let (attributes, relationships, entityProblems) = inferProperties(
                from: sourceEntity, to: entity, entityMap: matched, source: source, destination: destination)
            if !covered.contains(entity.name) { problems += entityProblems }
            let unchanged = origin == entity.name && sourceEntity.versionHash == entity.versionHash
            mappings.append(
                EntityMapping(
                    kind: unchanged ? .copy : .transform, source: origin, destination: entity.name,
                    attributeMappings: attributes, relationshipMappings: relationships,
                    name: "IEM_\(unchanged ? "Copy" : "Transform")_\(entity.name)"))
        }
        for entity in source.entities where matched[entity.name] == nil {
            mappings.append(EntityMapping(kind: .remove, source: entity.name, destination: nil, name: "IEM_Remove_\(entity.name)"))
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
            // A new attribute, required or not, is inferred (§3): its default fills existing
            // objects, and without one the data decides at migration time. Core Data's inferred
            // mapping has a property mapping for it with no value expression: `.constant(nil)`.
            guard let origin = match(attribute.name, attribute.renamingIdentifier, in: sourceAttributes.map { ($0.name, $0.renamingIdentifier) }),
                let sourceAttribute = source.attributesByName[origin], !sourceAttribute.isTransient
            else {
                attributes.append(PropertyMapping(name: attribute.name, value: .constant(nil)))
                continue
            }
            if let refusal = TypeConversion.refusal(from: sourceAttribute, to: attribute) {
                problems.append("\(place): \(refusal)")
            }
            attributes.append(.copy(attribute.name, from: origin))
        }
        var relationships: [PropertyMapping] = []
        let sourceRelationships = Array(source.relationshipsByName.values)
        for relationship in destination.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
            let place = "\(destination.name).\(relationship.name)"
            // A new relationship, required or not, is inferred (§5); the data decides.
            guard let origin = match(relationship.name, relationship.renamingIdentifier, in: sourceRelationships.map { ($0.name, $0.renamingIdentifier) }),
                let sourceRelationship = source.relationshipsByName[origin], !sourceRelationship.isTransient
            else { continue }
            if sourceRelationship.isToMany && !relationship.isToMany {
                problems.append("\(place): a to-many relationship cannot become a to-one (Core Data refuses it too)")
            }
            let mappedDestination = entityMap[sourceRelationship.destinationEntityName]
            let hierarchy = Set(destinationHierarchy(of: relationship.destinationEntityName, in: destinationModel))
            if mappedDestination.map({ !hierarchy.contains($0) }) ?? true {
                problems.append(
                    "\(place): its destination changed from \(sourceRelationship.destinationEntityName) to \(relationship.destinationEntityName)")
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
