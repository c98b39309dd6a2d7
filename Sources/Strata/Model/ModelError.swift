/// A model that cannot be used: a dangling destination, an inverse that does not point back,
/// duplicate names, an inheritance cycle, a bad constraint, index or rule.
///
/// Catch one kind with `catch let error as ModelError where error.code == .unknownDestination`.
public struct ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem the model has.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case duplicateEntity, duplicateProperty, unknownSuperentity, inheritanceCycle
            case unknownDestination, badInverse, unknownProperty, invalidValue
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Two entities share a name.
        public static let duplicateEntity = Code(.duplicateEntity)
        /// Two properties of an entity (or of it and an ancestor) share a name.
        public static let duplicateProperty = Code(.duplicateProperty)
        /// An entity names a parent that the model does not have.
        public static let unknownSuperentity = Code(.unknownSuperentity)
        /// An entity is its own ancestor.
        public static let inheritanceCycle = Code(.inheritanceCycle)
        /// A relationship's destination entity is not in the model.
        public static let unknownDestination = Code(.unknownDestination)
        /// A relationship's inverse is missing, or does not point back.
        public static let badInverse = Code(.badInverse)
        /// A constraint or index names a property the entity does not have.
        public static let unknownProperty = Code(.unknownProperty)
        /// A default value, bound or rule does not fit its attribute.
        public static let invalidValue = Code(.invalidValue)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The entity at fault.
    public var entity: String
    /// The property at fault, when the problem is in one.
    public var property: String?
    /// What is wrong and how to fix it.
    public var message: String

    public init(_ code: Code, entity: String, property: String? = nil, _ message: String) {
        self.code = code
        self.entity = entity
        self.property = property
        self.message = message
    }

    public var description: String {
        let place = property.map { "\(entity).\($0)" } ?? entity
        return "Invalid model (\(place)): \(message)"
    }
}
