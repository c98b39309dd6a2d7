import Foundation

/// An entity: a kind of managed object, with its attributes, relationships, place in an
/// inheritance hierarchy, uniqueness constraints and fetch indexes.
///
/// ``attributes`` and ``relationships`` are the entity's own, as declared. Once the entity is
/// part of a ``ManagedObjectModel``, ``attributesByName``, ``relationshipsByName`` and
/// ``subentityNames`` include what it inherits and what inherits from it, as Core Data's do.
public struct EntityDescription: Sendable, Hashable {
    public var name: String
    /// The name of the class that represents the entity, as Xcode records it.
    public var managedObjectClassName: String
    /// The class that contexts instantiate for the entity's objects. Registering a subclass
    /// here is all it takes: no Objective-C runtime is involved.
    public var managedObjectClass: ManagedObject.Type {
        get { classReference.type }
        set {
            classReference = ClassReference(newValue)
            managedObjectClassName = String(describing: newValue)
        }
    }
    /// Abstract entities have no objects of their own, only through their subentities.
    public var isAbstract: Bool { didSet { forgetVersionHash() } }
    /// The parent entity's name, for an entity that inherits from another.
    public var superentityName: String? {
        didSet {
            forgetVersionHash()
            resolvedSuperentityHash = nil
            resolvedInheritedPropertyHashes = [:]
        }
    }
    public var attributes: [AttributeDescription] { didSet { forgetVersionHash() } }
    public var relationships: [RelationshipDescription] { didSet { forgetVersionHash() } }
    /// Sets of property names whose values together must be unique among the entity's objects.
    public var uniquenessConstraints: [[String]] { didSet { forgetVersionHash() } }
    public var indexes: [FetchIndexDescription]
    /// The name the entity had in an earlier model version; used by migration.
    public var renamingIdentifier: String?
    /// Folded into the version hash, to mark a change the hash would not otherwise see.
    public var versionHashModifier: String? { didSet { forgetVersionHash() } }
    public var userInfo: [String: String]
    /// Properties whose values are the results of a fetch (Core Data's fetched properties).
    public var fetchedProperties: [FetchedPropertyDescription] = []
    /// How Xcode generates the entity's class (`class`, `category`), as the model file says.
    public var codeGenerationType: String?

    /// The names of the entities that inherit directly from this one, set by the model.
    public internal(set) var subentityNames: [String] = []
    /// The children given by Core Data's mutable API (``subentities``'s setter), which the
    /// model makes children; `nil` once a model has resolved the entity.
    var declaredSubentityNames: [String]?
    /// What the entity inherits from its ancestors, set by the model.
    var inheritedAttributes: [AttributeDescription] = []
    var inheritedRelationships: [RelationshipDescription] = []
    /// The entity's version hash, set by the model (see ``versionHash``).
    var resolvedVersionHash: Data?
    /// The hash Strata gave the entity before it used Core Data's, set by the model.
    var resolvedLegacyVersionHash: Data?
    /// Its stored properties' hashes, set by the model (see ``propertyVersionHashes``).
    var resolvedPropertyHashes: [String: Data] = [:]
    /// Its parent's version hash and the hashes of what it inherits, set by the model: kept
    /// when the entity changes afterwards, so that ``versionHash`` follows the change.
    var resolvedSuperentityHash: Data?
    var resolvedInheritedPropertyHashes: [String: Data] = [:]
    private var classReference: ClassReference
    /// The model the entity was taken from, if any (see ``superentity``).
    var modelLink = ModelLinkField()

    public init(
        name: String,
        managedObjectClass: ManagedObject.Type = ManagedObject.self,
        superentity: String? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [],
        indexes: [FetchIndexDescription] = [],
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.classReference = ClassReference(managedObjectClass)
        self.managedObjectClassName = managedObjectClass == ManagedObject.self
            ? "ManagedObject" : String(describing: managedObjectClass)
        self.superentityName = superentity
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    /// The entity's version hash, byte for byte Core Data's: SHA-256 over what decides how its
    /// objects are stored (see ``ManagedObjectModel/entityVersionHashesByName``).
    ///
    /// As Core Data's, it is there before the entity is part of a model and follows every
    /// change (its ``versionHashModifier`` among them). Outside a model, an entity knows no
    /// parent: a superentity it names adds nothing until a model resolves it (an entity taken
    /// from a model and changed keeps its parent's hash and what it inherits), and a
    /// relationship is its own inverse when it names itself and points at this entity.
    public var versionHash: Data {
        resolvedVersionHash ?? computeVersionHash(superentityHash: resolvedSuperentityHash, propertyHashes: propertyVersionHashes)
    }

    /// The version hashes of the entity's stored properties, inherited ones included, by
    /// name: what its ``versionHash`` covers (transient properties have none). Outside a
    /// model, those of its own properties (see ``versionHash``).
    public var propertyVersionHashes: [String: Data] {
        if resolvedVersionHash != nil { return resolvedPropertyHashes }
        var hashes = resolvedInheritedPropertyHashes
        for attribute in attributes where !attribute.isTransient { hashes[attribute.name] = attribute.versionHash }
        for relationship in relationships where !relationship.isTransient {
            let isOwnInverse = relationship.inverseName == relationship.name && relationship.destinationEntityName == name
            hashes[relationship.name] = relationship.versionHash(isOwnInverse: isOwnInverse)
        }
        return hashes
    }

    /// After a change to what the version hash covers: the model's hash no longer holds.
    private mutating func forgetVersionHash() {
        resolvedVersionHash = nil
    }

    /// The hash Strata wrote for the entity before it used Core Data's algorithm.
    var legacyVersionHash: Data { resolvedLegacyVersionHash ?? Data() }

    /// Every attribute of the entity, inherited ones included, by name.
    public var attributesByName: [String: AttributeDescription] {
        Dictionary((inheritedAttributes + attributes).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Every relationship of the entity, inherited ones included, by name.
    public var relationshipsByName: [String: RelationshipDescription] {
        Dictionary(
            (inheritedRelationships + relationships).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

/// A class object that can take part in value equality (metatypes are not `Hashable`).
struct ClassReference: Sendable, Hashable {
    let type: ManagedObject.Type

    init(_ type: ManagedObject.Type) { self.type = type }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.type == rhs.type }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(type)) }
}
