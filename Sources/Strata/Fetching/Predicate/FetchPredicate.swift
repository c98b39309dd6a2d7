/// A condition on objects, in Core Data's predicate language: parsed from a format string
/// (`"author.name BEGINSWITH[c] %@ AND pages > 100"`), or built in Swift. (Named so as not to
/// collide with Foundation's `Predicate`.)
///
/// ```swift
/// let long = try FetchPredicate(format: "pages > %d AND ANY tags.label IN %@", 300, ["classic", "novel"])
/// ```
///
/// Its ``description`` is the normalised format string. Fetch requests evaluate it on the
/// stored rows and the context's unsaved changes; ``evaluate(with:)`` evaluates it on one object.
public indirect enum FetchPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    case not(FetchPredicate)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case comparison(Comparison)

    /// A comparison between two expressions.
    public struct Comparison: Sendable, Hashable {
        public var lhs: ValueExpression
        public var op: Operator
        public var rhs: ValueExpression
        public var modifier: Modifier
        public var options: Options

        public init(_ lhs: ValueExpression, _ op: Operator, _ rhs: ValueExpression, modifier: Modifier = .direct, options: Options = []) {
            self.lhs = lhs
            self.op = op
            self.rhs = rhs
            self.modifier = modifier
            self.options = options
        }
    }

    /// The comparison operators.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case contains = "CONTAINS"
        case like = "LIKE"
        case matches = "MATCHES"
        case `in` = "IN"
        case between = "BETWEEN"
    }

    /// How a comparison applies to a collection on its left: directly, or to any, all or none
    /// of its elements.
    public enum Modifier: String, Sendable, Hashable {
        case direct = ""
        case any = "ANY"
        case all = "ALL"
        case none = "NONE"
    }

    /// String comparison options: `[c]` case-insensitive, `[d]` diacritic-insensitive,
    /// `[n]` normalised (taken as both).
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)
    }

    /// Parses a predicate in Core Data's format-string syntax, with `%@`, `%K`, `%d`, `%i`, `%ld`,
    /// `%lld`, `%f`, `%s` and `%u` arguments.
    ///
    /// - Throws: ``FetchPredicateError`` with the column of a syntax error and what was expected
    ///   (`expected a value after '>=' at column 14`), or a bad argument.
    public init(format: String, _ arguments: Any...) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parsePredicateOnly()
    }

    /// Parses a predicate as code writes it: the first specifiers (`%@`, `%K`, `%d`…) take
    /// `arguments`, and those past them stay in place as ``ValueExpression/placeholder(_:)``s —
    /// what `strata predicate` prints for a string pasted from code.
    public init(formatWithPlaceholders format: String, arguments: [Any] = []) throws {
        var parser = try PredicateParser(format: format, arguments: arguments, keepsPlaceholders: true)
        self = try parser.parsePredicateOnly()
    }

    /// Parses a predicate with its arguments in an array.
    public init(format: String, argumentArray: [Any]) throws {
        var parser = try PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parsePredicateOnly()
    }

    /// A predicate that compares two expressions.
    public static func compare(
        _ lhs: ValueExpression, _ op: Operator, _ rhs: ValueExpression, options: Options = []
    ) -> FetchPredicate {
        .comparison(Comparison(lhs, op, rhs, options: options))
    }
}

extension FetchPredicate: CustomStringConvertible {
    /// The predicate in normalised format-string syntax.
    public var description: String {
        switch self {
        case .constant(true): "TRUEPREDICATE"
        case .constant(false): "FALSEPREDICATE"
        case .not(let predicate): "NOT \(predicate.grouped)"
        case .and(let predicates): predicates.map { $0.grouped(in: "AND") }.joined(separator: " AND ")
        case .or(let predicates): predicates.map { $0.grouped(in: "OR") }.joined(separator: " OR ")
        case .comparison(let comparison): comparison.description
        }
    }

    private var grouped: String {
        switch self {
        case .and, .or: "(\(description))"
        default: description
        }
    }

    private func grouped(in parent: String) -> String {
        switch self {
        case .and where parent == "AND", .or where parent == "OR": description
        case .and, .or: "(\(description))"
        default: description
        }
    }
}

extension FetchPredicate.Comparison: CustomStringConvertible {
    public var description: String {
        var options = ""
        if self.options.contains(.caseInsensitive) { options += "c" }
        if self.options.contains(.diacriticInsensitive) { options += "d" }
        if self.options.contains(.normalized) { options += "n" }
        let modifier = self.modifier == .direct ? "" : "\(self.modifier.rawValue) "
        return "\(modifier)\(lhs) \(op.rawValue)\(options.isEmpty ? "" : "[\(options)]") \(rhs)"
    }
}
