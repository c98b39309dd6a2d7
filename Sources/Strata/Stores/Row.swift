import OrderedCollections

/// The stored state of one object: attribute values and relationship targets by slot (see
/// ``EntityLayout``), and the version number that optimistic locking compares.
package struct Row: Sendable, Hashable {
    package var attributes: [AttributeValue?]
    package var relationships: [RelationshipTargets]
    /// Starts at 1 when the object is first saved and grows by one with every saved change
    /// (an object written back after a deletion goes on above every version written before).
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

    /// What an object the store cannot give reads as: its defaults, and for a non-optional
    /// attribute without one, the zero value of its type.
    init(inaccessibleFor layout: EntityLayout) {
        self.init(emptyFor: layout)
        for (index, attribute) in layout.attributes.enumerated() where attributes[index] == nil && !attribute.isOptional {
            attributes[index] = AttributeValue.zero(of: attribute.type)
        }
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

    /// How many targets there are, without making an array of them.
    var count: Int {
        switch self {
        case .toOne(let id): id == nil ? 0 : 1
        case .toMany(let ids): ids.count
        }
    }

    var isEmpty: Bool {
        switch self {
        case .toOne(let id): id == nil
        case .toMany(let ids): ids.isEmpty
        }
    }

    func contains(_ target: ManagedObjectID) -> Bool {
        switch self {
        case .toOne(let id): id == target
        case .toMany(let ids): ids.contains(target)
        }
    }

    /// Calls `body` with every target, without making an array of them as ``objectIDs`` does
    /// (for the loops that visit every relationship of every row).
    func forEachTarget(_ body: (ManagedObjectID) throws -> Void) rethrows {
        switch self {
        case .toOne(let id): if let id { try body(id) }
        case .toMany(let ids): for id in ids { try body(id) }
        }
    }

    /// The same targets with IDs replaced by what `replacement` gives (new objects' IDs
    /// becoming permanent); `nil` when it replaces none of them, so that nothing is rebuilt.
    func replacing(_ replacement: (ManagedObjectID) -> ManagedObjectID?) -> RelationshipTargets? {
        switch self {
        case .toOne(let id):
            guard let id, let replaced = replacement(id) else { return nil }
            return .toOne(replaced)
        case .toMany(let ids):
            guard ids.contains(where: { replacement($0) != nil }) else { return nil }
            return .toMany(OrderedSet(ids.map { replacement($0) ?? $0 }))
        }
    }
}
