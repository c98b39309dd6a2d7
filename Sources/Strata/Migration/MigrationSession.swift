import Foundation

/// What a migration's custom code works with: the two models, the standard way to make a
/// destination object, and new objects of any destination entity.
///
/// Objects made with ``insert(entity:attributeValues:relatedObjectIDs:)`` are held in memory
/// until the migration ends (they may gain related objects meanwhile), then written.
public final class MigrationSession {
    public let sourceModel: ManagedObjectModel
    public let destinationModel: ManagedObjectModel
    /// The store's UUID, which every object ID of the store carries.
    public let storeIdentifier: String
    let mapping: MappingModel
    /// Source entity name → destination entity name, for related object IDs.
    let entityNames: [String: String]
    /// Destination hierarchy root → the next reference number.
    var nextReferences: [String: Int64]
    /// For a store whose reference numbers are one series for every entity (the XML store's
    /// `z<n>`): the next number, which inserted objects take instead of their hierarchy's.
    var storeWideNextReference: Int64?
    /// Objects inserted by custom code, written at the end.
    private(set) var inserted: [ManagedObjectID: MigrationObject] = [:]
    private(set) var insertionOrder: [ManagedObjectID] = []

    init(
        source: ManagedObjectModel, destination: ManagedObjectModel, mapping: MappingModel, storeIdentifier: String,
        nextReferences: [String: Int64]
    ) {
        sourceModel = source
        destinationModel = destination
        self.mapping = mapping
        self.storeIdentifier = storeIdentifier
        self.nextReferences = nextReferences
        var names: [String: String] = [:]
        for entityMapping in mapping.entityMappings {
            if let from = entityMapping.sourceEntityName, let to = entityMapping.destinationEntityName { names[from] = to }
        }
        entityNames = names
    }

    /// The destination object for a source object by a mapping's property mappings: attributes
    /// converted without loss, relationships re-pointed at the destination entities. Throws
    /// ``MigrationError`` with code `.dataLoss` when a value does not convert.
    public func standardDestination(for source: MigrationObject, mapping: EntityMapping) throws -> MigrationObject {
        guard let entityName = mapping.destinationEntityName, let entity = destinationModel.entity(named: entityName),
            let reference = source.objectID.referenceNumber
        else {
            throw MigrationError(.invalidMapping, "the mapping \(mapping.name) has no destination entity")
        }
        var destination = MigrationObject(objectID: objectID(entity: entityName, reference: reference))
        let attributes = entity.attributesByName
        for property in mapping.attributeMappings {
            guard let attribute = attributes[property.name] else { continue }
            let value: AttributeValue?
            switch property.value {
            case .sourceKey(let key): value = source.attributeValues[key]
            case .constant(let constant): value = constant
            case .closure(let closure): value = try closure(source)
            case .expression(let expression): value = try ExpressionValue.evaluate(expression, on: source, mapping: mapping, in: self)
            }
            guard let value else { continue }
            guard let converted = TypeConversion.convert(value, to: attribute.type) else {
                throw MigrationError(
                    .dataLoss,
                    "\(destination.objectID.uriRepresentation().absoluteString): \(entityName).\(attribute.name): its \(value.type.rawValue) value "
                        + "does not fit a \(attribute.type.rawValue) attribute")
            }
            destination.attributeValues[property.name] = converted
        }
        for (name, attribute) in attributes where destination.attributeValues[name] == nil && !attribute.isTransient {
            if let value = attribute.defaultValue { destination.attributeValues[name] = value }
        }
        let relationships = entity.relationshipsByName
        for property in mapping.relationshipMappings {
            guard let relationship = relationships[property.name], case .sourceKey(let key) = property.value else { continue }
            let targets = (source.relatedObjectIDs[key] ?? []).compactMap(mappedID)
            if !relationship.isToMany, targets.count > 1 {
                throw MigrationError(
                    .dataLoss,
                    "\(destination.objectID.uriRepresentation().absoluteString): \(entityName).\(property.name): \(targets.count) objects in what becomes a to-one")
            }
            destination.relatedObjectIDs[property.name] = targets
        }
        return destination
    }

    /// Inserts a new object of a destination entity, with a new reference number; it is written
    /// when the migration ends.
    @discardableResult
    public func insert(
        entity: String, attributeValues: [String: AttributeValue] = [:], relatedObjectIDs: [String: [ManagedObjectID]] = [:]
    ) throws -> ManagedObjectID {
        guard destinationModel.entity(named: entity) != nil else {
            throw MigrationError(.invalidMapping, "the destination model has no entity '\(entity)'")
        }
        let root = MappingModel.root(of: entity, in: destinationModel)
        let reference: Int64
        if let next = storeWideNextReference {
            reference = next
            storeWideNextReference = next + 1
        } else {
            reference = nextReferences[root] ?? 1
            nextReferences[root] = reference + 1
        }
        let id = objectID(entity: entity, reference: reference)
        inserted[id] = MigrationObject(objectID: id, attributeValues: attributeValues, relatedObjectIDs: relatedObjectIDs)
        insertionOrder.append(id)
        return id
    }

    /// Adds `target` to a relationship of an object inserted by ``insert(entity:attributeValues:relatedObjectIDs:)``.
    public func relate(_ id: ManagedObjectID, _ key: String, to target: ManagedObjectID) {
        inserted[id]?.relatedObjectIDs[key, default: []].append(target)
    }

    /// The objects custom code inserted of the entity `name`, in the order they were inserted:
    /// how a policy finds one that another mapping (or object) made, as a Core Data policy
    /// fetches it from the destination context.
    public func insertedObjects(entity name: String) -> [MigrationObject] {
        insertionOrder.compactMap { inserted[$0] }.filter { $0.entityName == name }
    }

    /// An inserted object, to read or change before it is written.
    public subscript(inserted id: ManagedObjectID) -> MigrationObject? {
        get { inserted[id] }
        set { inserted[id] = newValue }
    }

    /// The ID, in the destination store, of a source object.
    public func mappedID(_ id: ManagedObjectID) -> ManagedObjectID? {
        guard let entity = entityNames[id.entityName], let reference = id.referenceNumber else { return nil }
        return objectID(entity: entity, reference: reference)
    }

    func objectID(entity: String, reference: Int64) -> ManagedObjectID {
        // Object URIs are the public way to make an ID from its parts.
        ManagedObjectID.make(store: storeIdentifier, entity: entity, reference: reference)
    }
}
