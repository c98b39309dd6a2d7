/// A named fetch request stored in a model (Xcode's fetch request templates).
public struct FetchRequestTemplate: Sendable, Hashable {
    public var name: String
    public var entityName: String
    /// The request's predicate, in Core Data's format-string syntax.
    public var predicateFormat: String?

    public init(name: String, entityName: String, predicateFormat: String? = nil) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }
}
