/// Sets attributes of every object of an entity that matches a predicate, without managed
/// objects and in one save (Core Data's `NSBatchUpdateRequest`): run it with
/// ``ManagedObjectContext/execute(_:)-(BatchUpdateRequest)``.
///
/// A value is a constant or an expression evaluated on each object (`score * 2`, `name + "!"`
/// is not Core Data's, but `uppercase:(name)` is). Only attributes can be set. The changed
/// objects reach contexts only through merging.
public struct BatchUpdateRequest: Sendable {
    /// What an attribute is set to.
    public enum Value: Sendable, Hashable {
        /// A constant (`nil`: no value), converted to the attribute's type.
        case constant(AttributeValue?)
        /// An expression evaluated on each object, as in a predicate.
        case expression(ValueExpression)
    }

    public var entityName: String
    public var predicate: FetchPredicate?
    /// Attribute name → its new value.
    public var propertiesToUpdate: [String: Value] = [:]
    /// Whether objects of subentities are updated too (Core Data's default: yes).
    public var includesSubentities = true
    public var resultType: BatchResultType = .statusOnly

    public init(entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: Value] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}
