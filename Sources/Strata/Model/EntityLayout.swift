import OrderedCollections

/// Where each property of an entity lives in a row: the slots objects and stores use.
///
/// Inherited properties come first, in the ancestor's order, so a property keeps the same slot
/// in every entity of a hierarchy.
package final class EntityLayout: Sendable {
    package enum Slot: Hashable {
        case attribute(Int)
        case relationship(Int)

        /// The attribute's index, for an attribute's slot.
        var attributeIndex: Int? { if case .attribute(let index) = self { index } else { nil } }
        /// The relationship's index, for a relationship's slot.
        var relationshipIndex: Int? { if case .relationship(let index) = self { index } else { nil } }
    }

    package let entity: EntityDescription
    package let attributes: [AttributeDescription]
    package let relationships: [RelationshipDescription]
    package let slots: [String: Slot]
    /// The root of the entity's hierarchy: reference objects are unique per root.
    package let rootEntityName: String
    /// This entity and every entity that inherits from it, directly or not.
    let hierarchyNames: [String]
    /// The slot of each relationship's inverse in its destination entity, when it has one.
    let inverseSlots: [Int?]
    /// The uniqueness constraints of the entity and its ancestors, as attribute slots (constraints
    /// that name relationships are left out: Strata checks attribute values).
    package let uniquenessConstraints: [(names: [String], slots: [Int])]
    /// The attribute slots that have an index: the first property of a fetch index or of a
    /// uniqueness constraint of the entity or an ancestor, and attributes marked indexed.
    let indexedAttributes: [Int]
    /// The attribute slots of type object ID, whose temporary IDs a save makes permanent.
    let objectIDAttributes: [Int]
    /// The space of the entity's temporary object IDs, kept at hand for inserts.
    let temporaryIDSpace: ObjectIDSpace
    /// Whether every property is stored: then an object's values, once saved, are its row.
    let storesEveryProperty: Bool
    /// The keys the entity's class computes (``ManagedObject/computedKeys``), but for those the
    /// entity models.
    let computedKeys: [String: ComputedKey]
    /// A row with no values: defaults, no targets. Made once, so that every row made empty
    /// (``Row/init(emptyFor:)``: each fault, each row a store decodes into) shares its arrays
    /// until it is written — a fetch of a million faults makes no array per fault.
    let emptyRow: Row

    init(entity: EntityDescription, entities: [String: EntityDescription]) {
        self.entity = entity
        attributes = entity.inheritedAttributes + entity.attributes
        relationships = entity.inheritedRelationships + entity.relationships
        var slots: [String: Slot] = [:]
        for (index, attribute) in attributes.enumerated() { slots[attribute.name] = .attribute(index) }
        for (index, relationship) in relationships.enumerated() { slots[relationship.name] = .relationship(index) }
        var computed: [String: ComputedKey] = [:]
        for key in entity.managedObjectClass.computedKeys where slots[key.name] == nil { computed[key.name] = key }
        computedKeys = computed
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

        var lineage = [entity]
        while let parent = lineage.last?.superentityName.flatMap({ entities[$0] }) { lineage.append(parent) }
        var indexedNames = Set((entity.inheritedAttributes + entity.attributes).filter(\.isIndexed).map(\.name))
        for member in lineage {
            indexedNames.formUnion(member.indexes.compactMap { $0.elements.first?.propertyName })
            indexedNames.formUnion(member.uniquenessConstraints.compactMap(\.first))
        }
        let allAttributes = entity.inheritedAttributes + entity.attributes
        uniquenessConstraints = lineage.flatMap(\.uniquenessConstraints).compactMap { names in
            let slots = names.compactMap { name in allAttributes.firstIndex { $0.name == name } }
            return slots.count == names.count && !slots.isEmpty ? (names, slots) : nil
        }
        objectIDAttributes = allAttributes.indices.filter { allAttributes[$0].type == .objectID }
        temporaryIDSpace = .make(store: nil, entityName: entity.name)
        storesEveryProperty = !attributes.contains(where: \.isTransient) && !relationships.contains(where: \.isTransient)
        emptyRow = Row(
            attributes: attributes.map(\.defaultValue), relationships: relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }, version: 0)
        indexedAttributes = allAttributes.indices.filter {
            indexedNames.contains(allAttributes[$0].name) && !allAttributes[$0].isTransient
        }

        inverseSlots = relationships.map { relationship in
            guard let inverse = relationship.inverseName,
                let destination = entities[relationship.destinationEntityName]
            else { return nil }
            let destinationRelationships = destination.inheritedRelationships + destination.relationships
            return destinationRelationships.firstIndex { $0.name == inverse }
        }
    }

    package var name: String { entity.name }
}
