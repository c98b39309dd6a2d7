/// Where each property of an entity lives in a row: the slots objects and stores use.
///
/// Inherited properties come first, in the ancestor's order, so a property keeps the same slot
/// in every entity of a hierarchy.
final class EntityLayout: Sendable {
    enum Slot: Hashable {
        case attribute(Int)
        case relationship(Int)
    }

    let entity: EntityDescription
    let attributes: [AttributeDescription]
    let relationships: [RelationshipDescription]
    let slots: [String: Slot]
    /// The root of the entity's hierarchy: reference objects are unique per root.
    let rootEntityName: String
    /// This entity and every entity that inherits from it, directly or not.
    let hierarchyNames: [String]
    /// The slot of each relationship's inverse in its destination entity, when it has one.
    let inverseSlots: [Int?]

    init(entity: EntityDescription, entities: [String: EntityDescription]) {
        self.entity = entity
        attributes = entity.inheritedAttributes + entity.attributes
        relationships = entity.inheritedRelationships + entity.relationships
        var slots: [String: Slot] = [:]
        for (index, attribute) in attributes.enumerated() { slots[attribute.name] = .attribute(index) }
        for (index, relationship) in relationships.enumerated() { slots[relationship.name] = .relationship(index) }
        self.slots = slots

        var root = entity
        while let parent = root.superentityName.flatMap({ entities[$0] }) { root = parent }
        rootEntityName = root.name

        var hierarchy: [String] = []
        var pending = [entity.name]
        while let name = pending.popLast() {
            hierarchy.append(name)
            pending += entities[name]?.subentityNames ?? []
        }
        hierarchyNames = hierarchy

        inverseSlots = relationships.map { relationship in
            guard let inverse = relationship.inverseName,
                let destination = entities[relationship.destinationEntityName]
            else { return nil }
            let destinationRelationships = destination.inheritedRelationships + destination.relationships
            return destinationRelationships.firstIndex { $0.name == inverse }
        }
    }

    var name: String { entity.name }
}
