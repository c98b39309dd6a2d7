/// What an atomic store sees of an object being saved: its ID, its entity and its values.
///
/// Core Data hands `NSAtomicStore` the managed object itself. In Strata, managed objects stay
/// in their contexts and the coordinator commits on its own queue, so a store gets this
/// `Sendable` snapshot instead: the same information, with related objects as object IDs.
public struct ObjectSnapshot: Sendable {
    public let objectID: ManagedObjectID
    public let entity: EntityDescription
    /// The stored attributes that have a value, by name (transient ones are never stored).
    public let attributeValues: [String: AttributeValue]
    /// Every stored relationship by name: the IDs of its objects (none or one for to-one).
    public let relatedObjectIDs: [String: [ManagedObjectID]]

    init(objectID: ManagedObjectID, row: Row, layout: EntityLayout) {
        self.objectID = objectID
        entity = layout.entity
        var values: [String: AttributeValue] = [:]
        for (index, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            if let value = row.attributes[index] { values[attribute.name] = value }
        }
        var related: [String: [ManagedObjectID]] = [:]
        for (index, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            related[relationship.name] = row.relationships[index].objectIDs
        }
        attributeValues = values
        relatedObjectIDs = related
    }
}
