/// One object's stored values, as an ``IncrementalStore`` hands them out and takes them in:
/// Core Data's `NSIncrementalStoreNode`, with values typed as Strata's.
public struct IncrementalStoreNode: Sendable, Hashable {
    public var objectID: ManagedObjectID
    /// Attribute name → value; an attribute left out has no value (`nil`).
    public var attributeValues: [String: AttributeValue]
    /// Relationship name → its targets (one or none for a to-one), in order for an ordered one.
    /// A relationship left out (to-many or to-one) is a fault: Strata asks
    /// ``IncrementalStore/newValue(forRelationship:forObjectWith:with:)`` when it is first used,
    /// as Core Data does. A save's nodes name every relationship.
    public var relatedObjectIDs: [String: [ManagedObjectID]]
    /// The optimistic-locking version: 1 after the first save, one more with every saved change.
    public var version: Int64

    public init(
        objectID: ManagedObjectID, attributeValues: [String: AttributeValue], relatedObjectIDs: [String: [ManagedObjectID]],
        version: Int64
    ) {
        self.objectID = objectID
        self.attributeValues = attributeValues
        self.relatedObjectIDs = relatedObjectIDs
        self.version = version
    }
}

extension IncrementalStoreNode {
    /// A row's values by name.
    package init(objectID: ManagedObjectID, row: Row, layout: EntityLayout) {
        var attributes: [String: AttributeValue] = [:]
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            if let value = row.attributes[slot] { attributes[attribute.name] = value }
        }
        var related: [String: [ManagedObjectID]] = [:]
        for (slot, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            related[relationship.name] = row.relationships[slot].objectIDs
        }
        self.init(objectID: objectID, attributeValues: attributes, relatedObjectIDs: related, version: row.version)
    }
}
