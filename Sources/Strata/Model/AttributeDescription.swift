/// An attribute of an entity: its name, type, optionality, default value and validation rules.
///
/// Unlike `NSAttributeDescription`, which is optional unless told otherwise, a Strata attribute
/// is required unless it is declared optional: the same default as a Swift property.
public struct AttributeDescription: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    /// Whether the attribute may be `nil` when its object is saved.
    public var isOptional: Bool
    /// Transient attributes live in contexts only and are never stored.
    public var isTransient: Bool
    /// The value a newly inserted object starts with.
    public var defaultValue: AttributeValue?
    /// The smallest value a number or date may take (validated at save).
    public var minimumValue: AttributeValue?
    /// The largest value a number or date may take (validated at save).
    public var maximumValue: AttributeValue?
    /// The shortest length of a string (in characters) or binary data (in bytes).
    public var minimumLength: Int?
    /// The longest length of a string (in characters) or binary data (in bytes).
    public var maximumLength: Int?
    /// A regular expression that the whole of a string value must match.
    public var regularExpression: String?
    /// Predicates a value must satisfy when saved, `SELF` being the value (Core Data's
    /// `validationPredicates`): `SELF > 0`, `length >= 3`. A `nil` value is not checked.
    /// Set with ``setValidationPredicates(_:withValidationWarnings:)``.
    public internal(set) var validationPredicates: [FetchPredicate] = []
    /// What a save reports for each of ``validationPredicates`` a value breaks (Core Data's
    /// `validationWarnings`), one per predicate.
    public internal(set) var validationWarnings: [String] = []
    /// The name the attribute had in an earlier model version; used by migration.
    public var renamingIdentifier: String?
    /// Folded into the version hash, to mark a change the hash would not otherwise see.
    public var versionHashModifier: String?
    public var userInfo: [String: String]

    // What Xcode records for code generation and storage hints. Strata keeps them so that a
    // model read from an `.xcdatamodel` writes back the same; none changes a version hash.

    /// Whether generated code uses a scalar Swift type (`Int32` rather than `NSNumber`).
    public var usesScalarValueType = false
    /// Core Data's hint to store large binary values in separate files.
    public var allowsExternalBinaryDataStorage = false
    /// The value transformer of a transformable attribute, by name.
    public var valueTransformerName: String?
    /// The class of a transformable attribute's values, by name (Xcode's `customClassName`).
    public var attributeValueClassName: String?
    /// The single-property index of models older than fetch indexes (`indexed="YES"`).
    public var isIndexed = false
    /// The expression a derived attribute is computed from.
    public var derivationExpression: String?
    /// Whether persistent history keeps the value of deleted objects.
    public var preservesValueInHistoryOnDeletion = false
    /// For a ``AttributeType/composite`` attribute: the attributes it is made of (Core Data's
    /// `NSCompositeAttributeDescription.elements`), and the name Xcode gives the composite.
    public var compositeElements: [AttributeDescription] = []
    public var compositeName: String?

    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = false,
        isTransient: Bool = false,
        defaultValue: AttributeValue? = nil,
        minimumValue: AttributeValue? = nil,
        maximumValue: AttributeValue? = nil,
        minimumLength: Int? = nil,
        maximumLength: Int? = nil,
        regularExpression: String? = nil,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.regularExpression = regularExpression
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}
