/// An expression that evaluates to a value for one object: a key path, a constant, a variable,
/// arithmetic, a function, an aggregate, a subquery — the expression half of Core Data's
/// predicate format-string grammar (`NSExpression`). (Named so as not to collide with
/// Foundation's `Expression`.)
///
/// ```swift
/// let total = try ValueExpression(format: "books.@sum.pages + 1")
/// ```
public indirect enum ValueExpression: Sendable, Hashable {
    /// A constant value.
    case constant(PredicateValue)
    /// The object being evaluated (`SELF`).
    case evaluatedObject
    /// A key of the value of `base` (`author.name` is `.key(.key(.evaluatedObject, "author"), "name")`).
    case key(ValueExpression, String)
    /// A collection operator on `base`, applied to `keyPath` of its elements:
    /// `books.@sum.pages` is `.collectionOperator(books, "sum", ["pages"])`.
    case collectionOperator(ValueExpression, String, [String])
    /// A `$VARIABLE`: substituted before evaluation, or bound by a `SUBQUERY`.
    case variable(String)
    /// An argument specifier left in place (`%@`, `%K`, `%d`…), from a format string parsed
    /// without its arguments (``FetchPredicate/init(formatWithPlaceholders:arguments:)``): it prints as
    /// written, and cannot be evaluated.
    case placeholder(String)
    /// A literal collection: `{1, 2, 3}`.
    case aggregate([ValueExpression])
    /// A built-in function (`sum:`, `lowercase:`, `now`, …) with its arguments.
    case function(String, [ValueExpression])
    /// An arithmetic or bitwise operation: `+`, `-`, `*`, `/`, `**`, `&`, `|`, `^`, `<<`, `>>`.
    case binary(String, ValueExpression, ValueExpression)
    /// A prefix operation: `-` or `~`.
    case unary(String, ValueExpression)
    /// A subscript: `[FIRST]`, `[LAST]`, `[SIZE]` or `[n]`.
    case subscripted(ValueExpression, Subscript)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the collection that match.
    case subquery(ValueExpression, String, FetchPredicate)
    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    case ternary(FetchPredicate, ValueExpression, ValueExpression)
    /// `CAST(value, "NSDate")`, `"NSNumber"` or `"NSString"`.
    case cast(ValueExpression, String)

    /// The index of a subscript.
    public indirect enum Subscript: Sendable, Hashable {
        case first, last, size
        case index(ValueExpression)
    }

    /// A key path on the evaluated object, from its dotted form (`"author.name"`).
    public static func keyPath(_ path: String) -> ValueExpression {
        path.split(separator: ".").reduce(ValueExpression.evaluatedObject) { .key($0, String($1)) }
    }

    /// Parses an expression in Core Data's format-string syntax.
    ///
    /// - Throws: ``FetchPredicateError`` with the column of a syntax error and what was expected.
    public init(format: String, _ arguments: Any...) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseExpressionOnly()
    }
}

extension ValueExpression: CustomStringConvertible {
    /// The expression in normalised format-string syntax.
    public var description: String {
        switch self {
        case .constant(let value): value.description
        case .evaluatedObject: "SELF"
        case .key(.evaluatedObject, let key): Self.escape(key)
        case .key(let base, let key): "\(base).\(Self.escape(key))"
        case .collectionOperator(.evaluatedObject, let name, let path):
            (["@\(name)"] + path.map(Self.escape)).joined(separator: ".")
        case .collectionOperator(let base, let name, let path):
            ([base.description, "@\(name)"] + path.map(Self.escape)).joined(separator: ".")
        case .variable(let name): "$\(name)"
        case .placeholder(let format): "%\(format)"
        case .aggregate(let items): "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .function(let name, let arguments) where name.hasPrefix("FUNCTION:"):
            "FUNCTION(" + ([arguments.first?.description ?? "SELF", PredicateValue.quote(String(name.dropFirst(9)))]
                + arguments.dropFirst().map(\.description)).joined(separator: ", ") + ")"
        case .function(let name, let arguments) where arguments.isEmpty && !name.hasSuffix(":"): "\(name)()"
        case .function(let name, let arguments): "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
        case .binary(let op, let lhs, let rhs): "\(lhs.operand) \(op) \(rhs.operand)"
        case .unary(let op, let operand): "\(op)\(operand.operand)"
        case .subscripted(let base, let index):
            switch index {
            case .first: "\(base.operand)[FIRST]"
            case .last: "\(base.operand)[LAST]"
            case .size: "\(base.operand)[SIZE]"
            case .index(let value): "\(base.operand)[\(value)]"
            }
        case .subquery(let collection, let variable, let predicate): "SUBQUERY(\(collection), $\(variable), \(predicate))"
        case .ternary(let predicate, let yes, let no): "TERNARY(\(predicate), \(yes), \(no))"
        case .cast(let value, let type): "CAST(\(value), \(PredicateValue.quote(type)))"
        }
    }

    /// The expression as an operand of an operator: parenthesised when it is itself an operation.
    private var operand: String {
        if case .binary = self { return "(\(description))" }
        return description
    }

    /// A key that is a reserved word needs `#` in a format string.
    private static func escape(_ key: String) -> String {
        PredicateLexer.keywords.contains(key.uppercased()) ? "#\(key)" : key
    }
}
