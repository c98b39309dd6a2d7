/// A uniqueness constraint in the model DSL: the properties whose values together must be
/// unique among an entity's objects. (The entity keeps it in
/// ``EntityDescription/uniquenessConstraints`` as a list of names, as Core Data does.)
public struct UniquenessConstraint: Sendable, Hashable {
    public var propertyNames: [String]

    public init(_ propertyNames: String...) {
        self.propertyNames = propertyNames
    }
}
