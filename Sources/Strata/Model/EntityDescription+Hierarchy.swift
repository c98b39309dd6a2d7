/// Core Data's run-time view of an entity: its parent, children and properties as
/// descriptions, and the setters its mutable API builds models with.
///
/// An entity taken from a ``ManagedObjectModel`` (``ManagedObjectModel/entitiesByName``,
/// ``ManagedObject/entity``, …) answers ``superentity``, ``subentities`` and
/// ``RelationshipDescription/destinationEntity`` with that model's entities. An entity made in
/// code and not yet in a model knows only names (``superentityName``,
/// ``RelationshipDescription/destinationEntityName``): those answer `nil` or empty until a
/// model is made of it.
///
/// Descriptions are values, where Core Data's are objects: a change to an entity made after
/// it was put in a list, or after a model was made of it, changes that copy only. Build the
/// properties, then the entities, then the model, as most Core Data code does anyway.
extension EntityDescription {
    /// An entity with no name and no properties, for Core Data's mutable API: set
    /// ``name``, ``managedObjectClass`` and ``properties``, then make a model of it.
    public init() {
        self.init(name: "")
    }

    /// The entity this one inherits from, from its model: `nil` for a root entity or outside
    /// a model.
    public var superentity: EntityDescription? {
        superentityName.flatMap { modelLink.link?.entity(named: $0) }
    }

    /// The entities that inherit directly from this one, from its model.
    ///
    /// Setting it makes each given entity a child of this one when a model is made of them
    /// (Core Data's way to build a hierarchy in code): a model refuses an entity that is also
    /// given another parent, and ignores a named child that is not among its entities.
    public var subentities: [EntityDescription] {
        get { subentityNames.compactMap { modelLink.link?.entity(named: $0) } }
        set { declaredSubentityNames = newValue.map(\.name) }
    }

    /// ``subentities`` by name.
    public var subentitiesByName: [String: EntityDescription] {
        Dictionary(subentities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every property of the entity, inherited ones first, as Core Data lists them: attributes,
    /// then relationships, then fetched properties.
    ///
    /// Setting it replaces the entity's own properties with the given attributes,
    /// relationships and fetched properties; those it inherits stay its parent's (a list read
    /// from it, added to and set back keeps them inherited).
    public var properties: [any PropertyDescription] {
        get {
            var all: [any PropertyDescription] = inheritedAttributes + attributes
            all += inheritedRelationships + relationships
            all += fetchedProperties
            return all
        }
        set {
            let inherited = Set(inheritedAttributes.map(\.name) + inheritedRelationships.map(\.name))
            let own = newValue.filter { !inherited.contains($0.name) }
            attributes = own.compactMap { $0 as? AttributeDescription }
            relationships = own.compactMap { $0 as? RelationshipDescription }
            fetchedProperties = own.compactMap { $0 as? FetchedPropertyDescription }
        }
    }

    /// ``properties`` by name.
    public var propertiesByName: [String: any PropertyDescription] {
        Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity's fetched properties by name.
    public var fetchedPropertiesByName: [String: FetchedPropertyDescription] {
        Dictionary(fetchedProperties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether this entity is `entity` or inherits from it, directly or not (Core Data's
    /// `isKindOf(entity:)`). Outside a model, only the parent's name is known.
    public func isKindOf(entity: EntityDescription) -> Bool {
        if name == entity.name { return true }
        var ancestor = superentityName
        var seen: Set<String> = [name]
        while let current = ancestor, seen.insert(current).inserted {
            if current == entity.name { return true }
            ancestor = modelLink.link?.entity(named: current)?.superentityName
        }
        return false
    }
}

extension RelationshipDescription {
    /// A relationship with no name and no destination, for Core Data's mutable API: an
    /// optional to-one that nullifies until told otherwise, as Core Data's.
    public init() {
        self.init(name: "", destination: "")
    }

    /// The entity the relationship points at, from its model; `nil` outside a model.
    ///
    /// Setting it sets ``destinationEntityName`` (Core Data's mutable API).
    public var destinationEntity: EntityDescription? {
        get { modelLink.link?.entity(named: destinationEntityName) }
        set { destinationEntityName = newValue?.name ?? "" }
    }

    /// The relationship on the destination entity that points back, from its model; `nil`
    /// for a relationship without an inverse or outside a model.
    ///
    /// Setting it sets ``inverseName``; the model checks that the two point at each other.
    public var inverseRelationship: RelationshipDescription? {
        get {
            guard let inverseName, let destination = destinationEntity else { return nil }
            return destination.relationshipsByName[inverseName]
        }
        set { inverseName = newValue?.name }
    }
}

extension AttributeDescription {
    /// An attribute with no name and an undefined type, for Core Data's mutable API. As
    /// Core Data's, it is optional until told otherwise (``init(name:type:isOptional:isTransient:defaultValue:minimumValue:maximumValue:minimumLength:maximumLength:regularExpression:renamingIdentifier:versionHashModifier:userInfo:)``
    /// makes a required one, as a Swift property is).
    public init() {
        self.init(name: "", type: .undefined, isOptional: true)
    }

    /// Core Data's name for ``type``.
    public var attributeType: AttributeType {
        get { type }
        set { type = newValue }
    }
}
