/// A value a dictionary fetch returns: a key path, or an expression (an aggregate over a group,
/// say) under a name, as Core Data's `NSExpressionDescription`.
///
/// ```swift
/// // Core Data code, with `var` for `let`: the description is a value here
/// var total = ExpressionDescription()
/// total.name = "total"
/// total.expression = ValueExpression(forFunction: "sum:", arguments: [ValueExpression(forKeyPath: "pages")])
/// total.expressionResultType = .integer64AttributeType
/// request.propertiesToFetch = ["author.name", total]
/// ```
public struct ExpressionDescription: Sendable, Hashable {
    /// The key of the value in each result dictionary.
    public var name: String
    public var expression: ValueExpression
    /// The type the value is given in, as Core Data's `expressionResultType`: a number is
    /// converted to it (an integer type truncates a fraction, as SQL's `CAST` does; a
    /// floating-point or decimal type takes an integer); `nil` gives the value as computed.
    /// Values of other kinds are given as they are.
    public var expressionResultType: AttributeType?

    public init(name: String, expression: ValueExpression, expressionResultType: AttributeType? = nil) {
        self.name = name
        self.expression = expression
        self.expressionResultType = expressionResultType
    }

    /// An empty description, for Core Data's style of setting ``name`` and ``expression`` after.
    public init() {
        self.init(name: "", expression: .evaluatedObject)
    }

    /// A key path, named after itself: `.key("author.name")`.
    public static func key(_ path: String) -> ExpressionDescription {
        ExpressionDescription(name: path, expression: .keyPath(path))
    }
}

/// A key path written as a string, as Core Data's `propertiesToFetch = ["title", "author.name"]`.
extension ExpressionDescription: ExpressibleByStringLiteral {
    public init(stringLiteral path: String) {
        self = .key(path)
    }
}

extension ValueExpression {
    /// A key path on the evaluated object: Core Data's `NSExpression(forKeyPath:)`.
    public init(forKeyPath path: String) {
        self = .keyPath(path)
    }

    /// A function of arguments: Core Data's `NSExpression(forFunction:arguments:)`, with its
    /// names (`"sum:"`, `"count:"`, `"max:"`, `"uppercase:"`, …).
    public init(forFunction name: String, arguments: [ValueExpression]) {
        self = .function(name, arguments)
    }
}
