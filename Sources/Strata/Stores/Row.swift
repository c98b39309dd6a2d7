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

    /// A row with no values, shaped for `layout` (its arrays shared with every other such row
    /// until written).
    package init(emptyFor layout: EntityLayout) {
        self = layout.emptyRow
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
///
/// Equal when they name the same targets, whatever the case: an ``unread(_:)`` that is not the
/// same fault as the other side is read to compare (an unchanged row shares its faults with the
/// snapshot it is compared against, so that comparing it reads nothing).
package enum RelationshipTargets: Sendable, Hashable {
    case toOne(ManagedObjectID?)
    /// Unordered relationships use the set's order as it happens to be; ordered ones keep it.
    case toMany(OrderedSet<ManagedObjectID>)
    /// Targets the store has not been asked for yet (Core Data's relationship fault): the first
    /// use reads them, once (see ``RelationshipFault``).
    case unread(RelationshipFault)

    /// The targets as `.toOne` or `.toMany`, reading an unread relationship's from its store.
    package var resolved: RelationshipTargets {
        guard case .unread(let fault) = self else { return self }
        return fault.targets
    }

    package static func == (lhs: RelationshipTargets, rhs: RelationshipTargets) -> Bool {
        switch (lhs, rhs) {
        case (.toOne(let left), .toOne(let right)): left == right
        case (.toMany(let left), .toMany(let right)): left == right
        case (.unread(let left), .unread(let right)) where left === right: true
        case (.unread, _), (_, .unread): lhs.resolved == rhs.resolved
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch read {
        case .one(let id): hasher.combine(0); hasher.combine(id)
        case .many(let ids): hasher.combine(1); hasher.combine(ids)
        }
    }

    /// The targets, read: what a switch over a relationship's targets takes, so that none has
    /// an unread case to forget.
    package enum Read {
        case one(ManagedObjectID?)
        case many(OrderedSet<ManagedObjectID>)
    }

    /// The targets, reading an unread relationship's from its store.
    package var read: Read {
        switch self {
        case .toOne(let id): .one(id)
        case .toMany(let ids): .many(ids)
        // A fault's targets are never unread (RelationshipFault makes them `.toOne` or `.toMany`).
        case .unread(let fault): fault.targets.read
        }
    }

    /// Every target, whatever the cardinality.
    package var objectIDs: [ManagedObjectID] {
        switch read {
        case .one(let id): id.map { [$0] } ?? []
        case .many(let ids): Array(ids)
        }
    }

    /// How many targets there are, without making an array of them.
    var count: Int {
        switch read {
        case .one(let id): id == nil ? 0 : 1
        case .many(let ids): ids.count
        }
    }

    var isEmpty: Bool {
        switch read {
        case .one(let id): id == nil
        case .many(let ids): ids.isEmpty
        }
    }

    func contains(_ target: ManagedObjectID) -> Bool {
        switch read {
        case .one(let id): id == target
        case .many(let ids): ids.contains(target)
        }
    }

    /// Calls `body` with every target, without making an array of them as ``objectIDs`` does
    /// (for the loops that visit every relationship of every row).
    func forEachTarget(_ body: (ManagedObjectID) throws -> Void) rethrows {
        switch read {
        case .one(let id): if let id { try body(id) }
        case .many(let ids): for id in ids { try body(id) }
        }
    }

    /// The same targets with IDs replaced by what `replacement` gives (new objects' IDs
    /// becoming permanent); `nil` when it replaces none of them, so that nothing is rebuilt.
    func replacing(_ replacement: (ManagedObjectID) -> ManagedObjectID?) -> RelationshipTargets? {
        switch self {
        // What a store gives are saved objects: no temporary ID to replace, and nothing to read.
        case .unread: return nil
        case .toOne(let id):
            guard let id, let replaced = replacement(id) else { return nil }
            return .toOne(replaced)
        case .toMany(let ids):
            guard ids.contains(where: { replacement($0) != nil }) else { return nil }
            return .toMany(OrderedSet(ids.map { replacement($0) ?? $0 }))
        }
    }
}
