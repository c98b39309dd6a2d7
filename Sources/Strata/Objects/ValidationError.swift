/// An object whose values break its entity's rules: an unknown key, a value of the wrong type,
/// a missing required value, a value out of bounds, a relationship with too few or too many
/// objects, or a delete that a `deny` rule refuses.
///
/// Setting a value checks its key and type at once; the rest is checked when a context saves,
/// which then throws every problem it found: one error, or one with code `.multipleErrors`
/// whose ``errors`` lists them all. Messages name the entity and key, never the values
/// (stores hold people's data).
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of rule was broken.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unknownKey, wrongType, missingValue, valueTooSmall, valueTooLarge, tooShort, tooLong
            case patternMismatch, tooFewObjects, tooManyObjects, deleteDenied, wrongContext, multipleErrors
            case predicateFailed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The entity has no property with this key.
        public static let unknownKey = Code(.unknownKey)
        /// The value is not of a type the property can hold.
        public static let wrongType = Code(.wrongType)
        /// A required attribute or to-one relationship is `nil`.
        public static let missingValue = Code(.missingValue)
        public static let valueTooSmall = Code(.valueTooSmall)
        public static let valueTooLarge = Code(.valueTooLarge)
        /// A string or binary value is shorter than its minimum length.
        public static let tooShort = Code(.tooShort)
        /// A string or binary value is longer than its maximum length.
        public static let tooLong = Code(.tooLong)
        /// A string does not match its attribute's regular expression.
        public static let patternMismatch = Code(.patternMismatch)
        /// A value breaks one of its property's validation predicates; the message is that
        /// predicate's warning (Core Data's `validationWarnings`).
        public static let predicateFailed = Code(.predicateFailed)
        /// A to-many relationship holds fewer objects than its minimum count.
        public static let tooFewObjects = Code(.tooFewObjects)
        /// A to-many relationship holds more objects than its maximum count.
        public static let tooManyObjects = Code(.tooManyObjects)
        /// A deleted object still has objects in a relationship whose delete rule is `deny`.
        public static let deleteDenied = Code(.deleteDenied)
        /// A relationship was given an object from another context.
        public static let wrongContext = Code(.wrongContext)
        /// Several problems; see ``ValidationError/errors``.
        public static let multipleErrors = Code(.multipleErrors)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The object at fault (its ID at the time), when the problem is in one object.
    public var objectID: ManagedObjectID?
    /// The entity at fault.
    public var entity: String
    /// The property at fault, when the problem is in one.
    public var key: String?
    public var message: String
    /// Every problem found, for `.multipleErrors`; empty otherwise.
    public var errors: [ValidationError]

    /// A validation problem; a subclass's own checks (``ManagedObject/validateForInsert()``,
    /// ``ManagedObject/validateValue(_:forKey:)``) throw one too.
    public init(
        _ code: Code, entity: String, key: String? = nil, objectID: ManagedObjectID? = nil, _ message: String,
        errors: [ValidationError] = []
    ) {
        self.code = code
        self.entity = entity
        self.key = key
        self.objectID = objectID
        self.message = message
        self.errors = errors
    }

    /// One error for a list of problems: the problem itself when there is one.
    ///
    /// A subclass that adds checks to ``ManagedObject/validateForInsert()`` gathers its own
    /// problems with `super`'s and throws them as one, as Core Data code builds
    /// `NSValidationMultipleErrorsError`; nested multiple errors are flattened.
    public static func combining(_ errors: [ValidationError]) -> ValidationError? {
        let errors = errors.flatMap { $0.code == .multipleErrors ? $0.errors : [$0] }
        guard let first = errors.first else { return nil }
        guard errors.count > 1 else { return first }
        return ValidationError(
            .multipleErrors, entity: first.entity, "\(errors.count) validation errors: "
                + errors.map(\.description).joined(separator: "; "), errors: errors)
    }

    public var description: String {
        let place = key.map { "\(entity).\($0)" } ?? entity
        return "\(place): \(message)"
    }
}
