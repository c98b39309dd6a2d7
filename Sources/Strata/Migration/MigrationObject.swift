
/// An object while it migrates: its ID and its values by name. Custom mappings and policies read
/// the source object in this form and return the destination object in it.
public struct MigrationObject: Sendable {
    /// The object's ID; migration keeps reference numbers, so the destination object usually
    /// has the source's number under the destination entity's name.
    public var objectID: ManagedObjectID
    /// Attribute values by name (a missing key is no value).
    public var attributeValues: [String: AttributeValue]
    /// Related objects by relationship name.
    public var relatedObjectIDs: [String: [ManagedObjectID]]

    public init(
        objectID: ManagedObjectID, attributeValues: [String: AttributeValue] = [:], relatedObjectIDs: [String: [ManagedObjectID]] = [:]
    ) {
        self.objectID = objectID
        self.attributeValues = attributeValues
        self.relatedObjectIDs = relatedObjectIDs
    }

    /// The entity's name.
    public var entityName: String { objectID.entityName }

    /// An attribute's value.
    public subscript(key: String) -> AttributeValue? {
        get { attributeValues[key] }
        set { attributeValues[key] = newValue }
    }
}
