/// One object as an atomic store holds it: its ID and the values of its properties, as
/// Core Data's `NSAtomicStoreCacheNode`.
///
/// Related objects are held as object IDs (Core Data holds other cache nodes): IDs stay valid
/// whatever order a store loads its nodes in.
public final class AtomicStoreCacheNode: Hashable {
    public let objectID: ManagedObjectID
    /// Attribute values by name; a missing key is no value.
    public var attributeValues: [String: AttributeValue]
    /// Related object IDs by relationship name (none or one for a to-one relationship).
    public var relatedObjectIDs: [String: [ManagedObjectID]]
    /// The object's version for optimistic locking; stores that keep it write it with the node.
    public var version: Int64

    public init(
        objectID: ManagedObjectID, attributeValues: [String: AttributeValue] = [:],
        relatedObjectIDs: [String: [ManagedObjectID]] = [:], version: Int64 = 1
    ) {
        self.objectID = objectID
        self.attributeValues = attributeValues
        self.relatedObjectIDs = relatedObjectIDs
        self.version = version
    }

    /// A property's value: an attribute's value, or a relationship's object IDs.
    public func value(forKey key: String) -> (any Sendable)? {
        attributeValues[key] ?? relatedObjectIDs[key]
    }

    public static func == (lhs: AtomicStoreCacheNode, rhs: AtomicStoreCacheNode) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
