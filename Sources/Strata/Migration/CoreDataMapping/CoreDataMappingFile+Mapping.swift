import Foundation

extension CoreDataMappingFile {
    /// The manager functions whose value is the destination objects of a source relationship's
    /// objects: what Xcode writes, and momc fills in, for a relationship mapping.
    static let relationshipFunctions: Set = [
        "FUNCTION:destinationInstancesForEntityMappingNamed:sourceInstances:",
        "FUNCTION:destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    ]

    /// Whether the file maps `source` to `destination`, as Core Data picks a mapping model for a
    /// migration (`NSMappingModel(from:forSourceModel:destinationModel:)`): a compiled mapping's
    /// entity mappings carry the version hashes of the entities they were compiled against, and
    /// each must equal the model's; an Xcode mapping names its two model versions by path, and
    /// they must be `sourceVersion` and `destinationVersion`.
    func maps(
        from source: ManagedObjectModel, to destination: ManagedObjectModel, sourceVersion: String?, destinationVersion: String?
    ) -> Bool {
        if sourceModelPath != nil || destinationModelPath != nil {
            return sourceVersionName == sourceVersion && destinationVersionName == destinationVersion
        }
        let sourceHashes = source.entityVersionHashesByName, destinationHashes = destination.entityVersionHashesByName
        return !entities.isEmpty
            && entities.allSatisfy { entity in
                (entity.source.map { name in sourceHashes[name] != nil && (entity.sourceHash == nil || entity.sourceHash == sourceHashes[name]) } ?? true)
                    && (entity.destination.map { name in
                        destinationHashes[name] != nil && (entity.destinationHash == nil || entity.destinationHash == destinationHashes[name])
                    } ?? true)
            }
    }

    /// The file as a ``MappingModel`` from `source` to `destination`.
    ///
    /// Each entity mapping becomes an ``EntityMapping``: `.add` without a source entity,
    /// `.remove` without a destination, `.custom` with a policy (from `policies`, then
    /// ``MigrationPolicyRegistry``), else `.transform`. An attribute's `$source.name` becomes a
    /// copy of the source attribute (the fast path); other expressions are evaluated per object.
    /// A relationship's `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
    /// mapping, $source.key)` (or `…ForSourceRelationshipNamed…`) becomes the source
    /// relationship's objects, re-pointed at what they became. A property the file gives no
    /// value keeps the destination's default, and a source entity no entity mapping names is
    /// not migrated, as in Core Data.
    ///
    /// With `requiringPolicies` off (for a plan shown by a tool, which cannot run a program's
    /// policies), a policy nobody registered is no error: the mapping keeps its class name only.
    ///
    /// - Throws: ``MigrationError`` with code `.invalidMapping`, listing every entity, property,
    ///   expression and policy that is wrong.
    func mappingModel(
        from source: ManagedObjectModel, to destination: ManagedObjectModel, policies: [String: MigrationPolicyRegistry.Factory],
        requiringPolicies: Bool = true
    ) throws -> MappingModel {
        var problems: [String] = []
        var mappings: [EntityMapping] = []
        for entity in entities {
            let sourceEntity = entity.source.flatMap { source.entity(named: $0) }
            let destinationEntity = entity.destination.flatMap { destination.entity(named: $0) }
            if let name = entity.source, sourceEntity == nil { problems.append("\(entity.name): the source model has no entity '\(name)'") }
            if let name = entity.destination, destinationEntity == nil {
                problems.append("\(entity.name): the destination model has no entity '\(name)'")
            }
            if let filter = entity.sourceFilter {
                problems.append("\(entity.name): it takes only the source objects matching \(filter); Strata does not filter an entity mapping's objects yet")
            }
            var policy: (any EntityMigrationPolicy)?
            if let className = entity.policyClassName {
                policy = MigrationPolicyRegistry.policy(named: className, in: policies)
                if policy == nil && requiringPolicies {
                    problems.append("\(entity.name): its policy class \(className) is not registered; \(MigrationPolicyRegistry.advice(for: className))")
                }
            }
            let kind: EntityMapping.Kind =
                entity.source == nil ? .add : entity.destination == nil ? .remove : entity.policyClassName != nil ? .custom : .transform
            var mapping = EntityMapping(kind: kind, source: entity.source, destination: entity.destination, policy: policy, name: entity.name)
            mapping.policyClassName = entity.policyClassName
            if let sourceEntity, let destinationEntity, kind == .transform || kind == .custom {
                let context = PropertyContext(entity: entity, source: sourceEntity, destination: destinationEntity, model: source)
                for property in entity.attributes {
                    do {
                        if let value = try context.attributeValue(property, hasPolicy: entity.policyClassName != nil) {
                            mapping.attributeMappings.append(value)
                        }
                    } catch let problem as Problem {
                        problems.append(problem.description)
                    }
                }
                for property in entity.relationships {
                    do {
                        if let value = try context.relationshipValue(property) { mapping.relationshipMappings.append(value) }
                    } catch let problem as Problem {
                        problems.append(problem.description)
                    }
                }
            }
            mappings.append(mapping)
        }
        guard problems.isEmpty else {
            throw MigrationError(.invalidMapping, "the mapping model \(file.lastPathComponent) does not map the two models", problems: problems)
        }
        return MappingModel(entityMappings: mappings)
    }

    private struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// One entity mapping's property mappings, checked against its two entities.
    private struct PropertyContext {
        let entity: Entity
        let source: EntityDescription
        let destination: EntityDescription
        let model: ManagedObjectModel

        func attributeValue(_ property: Property, hasPolicy: Bool) throws -> PropertyMapping? {
            let place = "\(entity.name).\(property.name)"
            guard let attribute = destination.attributesByName[property.name] else {
                throw Problem(description: "\(place): \(destination.name) has no attribute '\(property.name)'")
            }
            guard !attribute.isTransient else { return nil }
            guard let expression = property.expression else {
                let key = property.sourceKeyPath ?? property.name
                guard property.sourceKeyPath != nil || entity.fillsUnwrittenProperties, source.attributesByName[key] != nil else { return nil }
                return .copy(property.name, from: key)
            }
            if let key = Self.sourceKey(expression), source.attributesByName[key] != nil { return .copy(property.name, from: key) }
            try check(expression, place: place, hasPolicy: hasPolicy)
            return PropertyMapping(name: property.name, value: .expression(expression))
        }

        func relationshipValue(_ property: Property) throws -> PropertyMapping? {
            let place = "\(entity.name).\(property.name)"
            guard let relationship = destination.relationshipsByName[property.name] else {
                throw Problem(description: "\(place): \(destination.name) has no relationship '\(property.name)'")
            }
            guard !relationship.isTransient else { return nil }
            guard let expression = property.expression else {
                let key = property.sourceKeyPath ?? property.name
                guard property.sourceKeyPath != nil || entity.fillsUnwrittenProperties, source.relationshipsByName[key] != nil else { return nil }
                return .copy(property.name, from: key)
            }
            var key = Self.sourceKey(expression)
            if case .function(let name, let arguments) = expression, CoreDataMappingFile.relationshipFunctions.contains(name), arguments.count == 3 {
                key = Self.sourceKey(arguments[2])
            }
            guard let key, source.relationshipsByName[key] != nil else {
                throw Problem(
                    description: "\(place): its value \(expression) is not one Strata maps a relationship with: "
                        + "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", mapping, $source.relationship)")
            }
            return .copy(property.name, from: key)
        }

        /// `key` when the expression is `$source.key`.
        static func sourceKey(_ expression: ValueExpression) -> String? {
            if case .key(.variable("source"), let key) = expression { return key }
            return nil
        }

        /// Checks an attribute's expression: its key paths name the source's properties, it
        /// reaches no further than the source object's own values (migration streams objects,
        /// so a related object's values are not at hand), and it calls only what Strata answers.
        private func check(_ expression: ValueExpression, place: String, hasPolicy: Bool) throws {
            guard let layout = model.layout(for: source.name) else { return }
            do {
                _ = try expression.check(on: layout, model: model, variables: ["source": layout])
            } catch let error as FetchPredicateError {
                throw Problem(description: "\(place): \(expression): \(error.message)")
            }
            try walk(expression) { inner in
                switch inner {
                case .key(.key(let base, let relationship), _) where Self.isSource(base) && source.relationshipsByName[relationship] != nil:
                    throw Problem(description: "\(place): \(expression) reads a related object's values (\(relationship)), which a migration does not have at hand")
                case .collectionOperator(.key(let base, let relationship), _, let path)
                where Self.isSource(base) && source.relationshipsByName[relationship] != nil && !path.isEmpty:
                    throw Problem(description: "\(place): \(expression) reads related objects' values (\(relationship)), which a migration does not have at hand")
                case .function(let name, let arguments) where name.hasPrefix("FUNCTION:"):
                    let selector = String(name.dropFirst(9))
                    if case .variable("entityPolicy")? = arguments.first {
                        if !hasPolicy { throw Problem(description: "\(place): \(expression) calls $entityPolicy, and the mapping names no policy class") }
                    } else if !PredicateEvaluator.valueMethods.contains(selector) {
                        throw Problem(
                            description: "\(place): \(expression): Strata answers FUNCTION on $entityPolicy, and on values the selectors "
                                + PredicateEvaluator.valueMethods.sorted().joined(separator: ", "))
                    }
                case .variable(let name) where !["source", "entityPolicy"].contains(name):
                    throw Problem(description: "\(place): \(expression) uses $\(name), which Strata's migrations do not give a value")
                default: break
                }
            }
        }

        private static func isSource(_ expression: ValueExpression) -> Bool {
            if case .variable("source") = expression { return true }
            return expression == .evaluatedObject
        }

        /// Calls `visit` on `expression` and every expression inside it.
        private func walk(_ expression: ValueExpression, _ visit: (ValueExpression) throws -> Void) throws {
            try visit(expression)
            switch expression {
            case .key(let base, _), .collectionOperator(let base, _, _), .unary(_, let base), .cast(let base, _): try walk(base, visit)
            case .aggregate(let items), .function(_, let items): for item in items { try walk(item, visit) }
            case .binary(_, let lhs, let rhs):
                try walk(lhs, visit)
                try walk(rhs, visit)
            case .subscripted(let base, let index):
                try walk(base, visit)
                if case .index(let position) = index { try walk(position, visit) }
            case .subquery(let collection, _, _): try walk(collection, visit)
            case .ternary(_, let yes, let no):
                try walk(yes, visit)
                try walk(no, visit)
            case .constant, .evaluatedObject, .variable, .placeholder: break
            }
        }
    }
}
