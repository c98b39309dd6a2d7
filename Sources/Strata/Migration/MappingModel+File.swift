import Foundation

extension MappingModel {
    /// Reads a mapping model from a JSON file: custom entity mappings whose values are
    /// expressions in the predicate language's expression syntax (key paths, constants,
    /// arithmetic, string concatenation, functions) over the source object's attributes; every
    /// entity the file does not map is inferred.
    ///
    /// ```json
    /// {"entityMappings": [
    ///   {"source": "Person", "destination": "Contact", "kind": "transform",
    ///    "attributes": {"fullName": "firstName + ' ' + lastName", "age": "age"},
    ///    "relationships": {"employer": "company"}}
    /// ]}
    /// ```
    ///
    /// Attributes of a transform mapping that the file does not list are copied by name (or
    /// renaming identifier) when the source has them. Kinds: `transform`, `copy`, `add`, `remove`.
    ///
    /// A Core Data mapping model — an Xcode `.xcmappingmodel` folder (or its `xcmapping.xml`)
    /// or a compiled `.cdm` — is read as Core Data reads it (see ``MigrationPlan/addMappingModel(at:policies:)``
    /// and the Migrations article): it maps exactly what it says, its value expressions over
    /// `$source`, its policies found by class name in `policies`, then in ``MigrationPolicyRegistry``.
    ///
    /// - Throws: ``MigrationError`` with code `.invalidMapping` listing every entity, property,
    ///   expression and policy that is wrong, or `.cannotInfer` for what a JSON file leaves to
    ///   inference; ``ModelFileError`` for a Core Data mapping file that cannot be read.
    public init(
        contentsOf url: URL, source: ManagedObjectModel, destination: ManagedObjectModel,
        policies: [String: MigrationPolicyRegistry.Factory] = [:]
    ) throws {
        if CoreDataMappingFile.isCoreDataMapping(url) {
            self = try CoreDataMappingFile(contentsOf: url).mappingModel(from: source, to: destination, policies: policies)
            return
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MigrationError(.invalidMapping, "cannot read the mapping model \(url.path): \(error.localizedDescription)")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entries = root["entityMappings"] as? [[String: Any]]
        else {
            throw MigrationError(.invalidMapping, "\(url.path) is not a mapping model: expected {\"entityMappings\": [...]}")
        }
        var problems: [String] = []
        var custom: [EntityMapping] = []
        for (index, entry) in entries.enumerated() {
            let place = "entityMappings[\(index)]"
            let sourceName = entry["source"] as? String
            let destinationName = entry["destination"] as? String
            guard let kind = EntityMapping.Kind(rawValue: entry["kind"] as? String ?? "transform"), kind != .custom else {
                problems.append("\(place): unknown kind '\(entry["kind"] ?? "")' (transform, copy, add or remove)")
                continue
            }
            let sourceEntity = sourceName.flatMap { source.entity(named: $0) }
            let destinationEntity = destinationName.flatMap { destination.entity(named: $0) }
            if let sourceName, sourceEntity == nil { problems.append("\(place): the source model has no entity '\(sourceName)'") }
            if let destinationName, destinationEntity == nil {
                problems.append("\(place): the destination model has no entity '\(destinationName)'")
            }
            var mapping = EntityMapping(kind: kind, source: sourceName, destination: destinationName)
            if let sourceEntity, let destinationEntity, kind == .transform || kind == .copy {
                let given = entry["attributes"] as? [String: String] ?? [:]
                for (name, attribute) in destinationEntity.attributesByName.sorted(by: { $0.key < $1.key }) where !attribute.isTransient {
                    if let text = given[name] {
                        do {
                            let expression = try ValueExpression(format: text)
                            if case .key(.evaluatedObject, let key) = expression, sourceEntity.attributesByName[key] != nil {
                                mapping.attributeMappings.append(.copy(name, from: key))
                            } else {
                                mapping.attributeMappings.append(PropertyMapping(name: name, value: .expression(expression)))
                            }
                        } catch {
                            problems.append("\(place).attributes.\(name): \(error)")
                        }
                    } else if let origin = Self.match(name, attribute.renamingIdentifier, in: sourceEntity.attributesByName.values.map { ($0.name, $0.renamingIdentifier) }) {
                        mapping.attributeMappings.append(.copy(name, from: origin))
                    }
                }
                for name in given.keys where destinationEntity.attributesByName[name] == nil {
                    problems.append("\(place).attributes: \(destinationEntity.name) has no attribute '\(name)'")
                }
                let relationships = entry["relationships"] as? [String: String] ?? [:]
                for (name, relationship) in destinationEntity.relationshipsByName.sorted(by: { $0.key < $1.key }) where !relationship.isTransient {
                    let key = relationships[name]
                        ?? Self.match(name, relationship.renamingIdentifier, in: sourceEntity.relationshipsByName.values.map { ($0.name, $0.renamingIdentifier) })
                    guard let key else { continue }
                    guard sourceEntity.relationshipsByName[key] != nil else {
                        problems.append("\(place).relationships.\(name): \(sourceEntity.name) has no relationship '\(key)'")
                        continue
                    }
                    mapping.relationshipMappings.append(.copy(name, from: key))
                }
            }
            custom.append(mapping)
        }
        guard problems.isEmpty else {
            throw MigrationError(.invalidMapping, "the mapping model \(url.lastPathComponent) is not valid", problems: problems)
        }
        let covered = Set(custom.compactMap(\.destinationEntityName))
        var model = try MappingModel.inferred(from: source, to: destination, except: covered)
        for mapping in custom { model = model.replacing(mapping) }
        self = model
    }
}
