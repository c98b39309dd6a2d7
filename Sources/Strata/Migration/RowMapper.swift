import Foundation
import OrderedCollections

/// A copy or transform mapping of one source entity, compiled against the file's schema and the
/// destination layout: each destination slot knows the source slot it reads. This is the fast
/// path of a migration; mappings with expressions, closures or policies go through
/// ``MigrationObject``s instead.
struct RowMapper {
    private let destination: EntityLayout
    /// For each destination attribute: the source slot, or nil (then the default value).
    private let attributes: [Int?]
    private let conversions: [AttributeType?]
    /// For each destination relationship: the source slot, or nil (then empty).
    private let relationships: [Int?]
    /// For each source entity, the ID space of what it becomes in the destination store.
    private let targetSpaces: [String: ObjectIDSpace]
    /// The store's UUID, for the URIs errors name objects by.
    private let store: String

    init?(
        mapping: EntityMapping, source: StoreSchema.Entity, destination: EntityLayout, renames: [String: String], store: String
    ) {
        guard mapping.policy == nil else { return nil }
        var attributeSources: [String: Int] = [:]
        for property in mapping.attributeMappings {
            // No value: the destination's default, as for an attribute no mapping names.
            if case .constant(nil) = property.value { continue }
            guard case .sourceKey(let key) = property.value, let index = source.attributes.firstIndex(where: { $0.name == key }) else {
                return nil
            }
            attributeSources[property.name] = index
        }
        var relationshipSources: [String: Int] = [:]
        for property in mapping.relationshipMappings {
            guard case .sourceKey(let key) = property.value else { return nil }
            relationshipSources[property.name] = source.relationships.firstIndex { $0.name == key }
        }
        self.destination = destination
        attributes = destination.attributes.map { $0.isTransient ? nil : attributeSources[$0.name] }
        conversions = destination.attributes.enumerated().map { index, attribute in
            attributeSources[attribute.name].map { source.attributes[$0].type == attribute.type ? nil : attribute.type } ?? nil
        }
        relationships = destination.relationships.map { relationshipSources[$0.name] }
        targetSpaces = renames.mapValues { ObjectIDSpace.make(store: store, entityName: $0) }
        self.store = store
    }

    /// How errors name an object: its URI in the destination store.
    private func name(_ reference: Int64) -> String {
        ManagedObjectID.make(store: store, entity: destination.name, reference: reference).uriRepresentation().absoluteString
    }

    func map(_ row: Row, reference: Int64) throws -> Row {
        var mapped = Row(emptyFor: destination)
        mapped.version = row.version
        for (index, source) in attributes.enumerated() {
            guard let source else { continue }
            guard let value = row.attributes[source] else {
                if destination.attributes[index].isOptional || destination.attributes[index].defaultValue == nil {
                    mapped.attributes[index] = nil
                }
                continue
            }
            if let type = conversions[index] {
                guard let converted = TypeConversion.convert(value, to: type) else {
                    throw MigrationError(
                        .dataLoss,
                        "\(name(reference)): \(destination.name).\(destination.attributes[index].name): its \(value.type.rawValue) value does not fit "
                            + "a \(type.rawValue) attribute (§4)")
                }
                mapped.attributes[index] = converted
            } else {
                mapped.attributes[index] = value
            }
        }
        for (index, source) in relationships.enumerated() {
            guard let source else { continue }
            let targets = row.relationships[source].objectIDs.compactMap { id -> ManagedObjectID? in
                guard let space = targetSpaces[id.entityName], let number = id.referenceNumber else { return nil }
                return ManagedObjectID(space: space, number: number)
            }
            let relationship = destination.relationships[index]
            if relationship.isToMany {
                mapped.relationships[index] = .toMany(OrderedSet(targets))
            } else {
                guard targets.count <= 1 else {
                    throw MigrationError(
                        .dataLoss, "\(name(reference)): \(destination.name).\(relationship.name): \(targets.count) objects in what becomes a to-one")
                }
                mapped.relationships[index] = .toOne(targets.first)
            }
        }
        return mapped
    }
}

extension MigrationObject {
    /// A source object from a row read in the file's schema order.
    init(row: Row, reference: Int64, entity: StoreSchema.Entity, store: String) {
        var values: [String: AttributeValue] = [:]
        for (attribute, value) in zip(entity.attributes, row.attributes) {
            if let value { values[attribute.name] = value }
        }
        var related: [String: [ManagedObjectID]] = [:]
        for (relationship, targets) in zip(entity.relationships, row.relationships) {
            related[relationship.name] = targets.objectIDs
        }
        self.init(objectID: .make(store: store, entity: entity.name, reference: reference), attributeValues: values, relatedObjectIDs: related)
    }

    /// The object as a row of the destination layout.
    func row(for layout: EntityLayout, version: Int64) throws -> Row {
        var row = Row(emptyFor: layout)
        row.version = version
        for (index, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            if let value = attributeValues[attribute.name] { row.attributes[index] = value }
        }
        for (index, relationship) in layout.relationships.enumerated() {
            let targets = relatedObjectIDs[relationship.name] ?? []
            if relationship.isToMany {
                row.relationships[index] = .toMany(OrderedSet(targets))
            } else {
                guard targets.count <= 1 else {
                    throw MigrationError(.dataLoss, "\(objectID) has \(targets.count) objects in the to-one \(relationship.name)")
                }
                row.relationships[index] = .toOne(targets.first)
            }
        }
        return row
    }
}
