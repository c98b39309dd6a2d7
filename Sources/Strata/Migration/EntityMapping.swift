/// How the objects of one source entity become objects of one destination entity, as Core
/// Data's `NSEntityMapping`.
public struct EntityMapping: Sendable {
    /// What the mapping does.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A destination entity with no source: it starts empty.
        case add
        /// A source entity with no destination: its objects are dropped.
        case remove
        /// The same entity, properties copied as they are (with lossless conversions).
        case copy
        /// Properties mapped by the property mappings.
        case transform
        /// Objects made by the ``EntityMapping/policy``.
        case custom
    }

    public var kind: Kind
    public var sourceEntityName: String?
    public var destinationEntityName: String?
    /// Destination attributes and their values. Attributes not listed get their default value.
    public var attributeMappings: [PropertyMapping]
    /// Destination relationships and the source relationships they take their objects from.
    public var relationshipMappings: [PropertyMapping]
    /// Code that makes the destination objects, for a custom mapping (Core Data's
    /// `NSEntityMigrationPolicy`).
    public var policy: (any EntityMigrationPolicy)?
    /// The policy's class name, for a mapping read from a Core Data mapping model (Core Data's
    /// `entityMigrationPolicyClassName`): what ``MigrationPolicyRegistry`` found ``policy`` by.
    /// A mapping that names a class and has no policy cannot run: the migration refuses it
    /// before it starts.
    public var policyClassName: String?

    /// The mapping's name, as Core Data's `NSEntityMapping.name`: what a mapping model's file
    /// calls it (`EmployeeToPerson`), else "Employee → Person".
    public var name: String

    public init(
        kind: Kind, source: String?, destination: String?, attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [], policy: (any EntityMigrationPolicy)? = nil, name: String? = nil
    ) {
        self.name = name ?? "\(source ?? "∅") → \(destination ?? "∅")"
        self.kind = kind
        sourceEntityName = source
        destinationEntityName = destination
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.policy = policy
    }
}
