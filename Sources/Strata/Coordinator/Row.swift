import OrderedCollections

/// The stored state of one object: attribute values and relationship targets by slot (see
/// ``EntityLayout``), and the version number that optimistic locking compares.
package struct Row: Sendable, Hashable {
    package var attributes: [AttributeValue?]
    package var relationships: [RelationshipTargets]
    /// Starts at 1 when the object is first saved and grows by one with every saved change.
    package var version: Int64

    package init(attributes: [AttributeValue?], relationships: [RelationshipTargets], version: Int64) {
        self.attributes = attributes
        self.relationships = relationships
        self.version = version
    }

    /// A row with no values, shaped for `layout`.
    package init(emptyFor layout: EntityLayout) {
        attributes = layout.attributes.map(\.defaultValue)
        relationships = layout.relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
        version = 0
    }
}

/// The objects at the other end of one relationship of one object.
package enum RelationshipTargets: Sendable, Hashable {
    case toOne(ManagedObjectID?)
    /// Unordered relationships use the set's order as it happens to be; ordered ones keep it.
    case toMany(OrderedSet<ManagedObjectID>)

    /// Every target, whatever the cardinality.
    package var objectIDs: [ManagedObjectID] {
        switch self {
        case .toOne(let id): id.map { [$0] } ?? []
        case .toMany(let ids): Array(ids)
        }
    }

    var isEmpty: Bool {
        switch self {
        case .toOne(let id): id == nil
        case .toMany(let ids): ids.isEmpty
        }
    }

    /// The same targets with IDs replaced through `mapping` (temporary IDs becoming permanent).
    func replacing(_ mapping: [ManagedObjectID: ManagedObjectID]) -> RelationshipTargets {
        switch self {
        case .toOne(let id): .toOne(id.map { mapping[$0] ?? $0 })
        case .toMany(let ids): .toMany(OrderedSet(ids.map { mapping[$0] ?? $0 }))
        }
    }
}
