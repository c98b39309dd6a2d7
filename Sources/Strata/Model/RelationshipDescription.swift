/// A relationship of an entity: to-one, to-many or ordered to-many, with its inverse and
/// delete rule.
public struct RelationshipDescription: Sendable, Hashable {
    public var name: String
    public var destinationEntityName: String
    /// The relationship on the destination entity that points back. Strata keeps both sides
    /// in step: setting one side updates the other.
    public var inverseName: String?
    /// Whether the relationship holds many objects: as in Core Data, whenever ``maxCount`` is
    /// not 1. Setting it makes ``maxCount`` 1 (to-one) or, from 1, 0 (to-many, unbounded).
    public var isToMany: Bool {
        get { maxCount != 1 }
        set {
            guard newValue != isToMany else { return }
            maxCount = newValue ? 0 : 1
        }
    }
    /// For a to-many relationship, whether its objects keep the order they were added in.
    public var isOrdered: Bool
    public var deleteRule: DeleteRule
    /// Whether a to-one relationship may be `nil` (a to-many one empty) when saved.
    public var isOptional: Bool
    /// The fewest objects a to-many relationship may hold when saved; 0 for no minimum. A
    /// to-one keeps the minimum its model file gives (older Xcode versions write 1 on optional
    /// to-ones): it plays no part in validation, only in the version hash, as in Core Data.
    public var minCount: Int
    /// The most objects the relationship may hold: 1 makes it a to-one (Core Data's rule,
    /// which ``isToMany`` follows); for a to-many, the most it may hold when saved, 0 (or, as
    /// models built in code write it, a negative number) for no maximum.
    public var maxCount: Int
    public var isTransient: Bool
    /// Predicates the relationship's value must satisfy when saved, `SELF` being the object
    /// (to-one) or the objects (to-many): `@count <= 3` (Core Data's `validationPredicates`).
    /// An empty relationship is not checked. Set with
    /// ``setValidationPredicates(_:withValidationWarnings:)``.
    public internal(set) var validationPredicates: [FetchPredicate] = []
    /// What a save reports for each of ``validationPredicates`` the value breaks.
    public internal(set) var validationWarnings: [String] = []
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String]
    /// The model the relationship was taken from, if any (see ``destinationEntity``).
    var modelLink = ModelLinkField()

    public init(
        name: String,
        destination: String,
        inverse: String? = nil,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        minCount: Int = 0,
        maxCount: Int = 0,
        isTransient: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        // A to-one's maximum is 1; a to-many given a maximum of 1 is a to-one, as in Core Data.
        self.maxCount = isToMany ? maxCount : 1
        self.isTransient = isTransient
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}

extension RelationshipDescription {
    /// Core Data's "mandatory": not optional, and a to-one or a to-many with a minimum count. A
    /// non-optional to-many with no minimum may be empty, at every save and migration
    /// (`formats/coredata-lightweight-migration.md` §5, §6).
    package var isMandatory: Bool {
        !isOptional && (!isToMany || minCount >= 1)
    }
}
