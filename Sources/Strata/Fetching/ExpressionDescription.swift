/// A value a dictionary fetch returns: a key path, or an expression (an aggregate over a group,
/// say) under a name, as Core Data's `NSExpressionDescription`.
public struct ExpressionDescription: Sendable, Hashable {
    /// The key of the value in each result dictionary.
    public var name: String
    public var expression: ValueExpression

    public init(name: String, expression: ValueExpression) {
        self.name = name
        self.expression = expression
    }

    /// A key path, named after itself: `.key("author.name")`.
    public static func key(_ path: String) -> ExpressionDescription {
        ExpressionDescription(name: path, expression: .keyPath(path))
    }
}
