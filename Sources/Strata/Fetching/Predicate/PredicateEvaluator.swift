import Foundation

/// Evaluates predicates and expressions on objects (rows with their layout), following
/// relationships through an ``ObjectSource``.
///
/// Semantics follow Core Data's: a key path that crosses a to-many relationship gives a
/// collection, and a comparison whose left side is such a collection holds when it holds for
/// any element (as `ANY` would say), except `CONTAINS`, which tests membership. `nil` equals
/// only `nil`, and is neither less nor greater than anything.
struct PredicateEvaluator {
    let source: any ObjectSource
    var variables: [String: EvaluationValue] = [:]
    /// Answers `FUNCTION($variable, "selector", arguments…)` whose target is no value but
    /// code (a migration's `$entityPolicy`): given the variable's name, the selector and the
    /// argument expressions with a way to evaluate them; `nil` leaves the function to the
    /// built-in ones.
    var customFunction: CustomFunction?
    private let patterns = PatternCache()

    typealias CustomFunction = (
        _ target: String, _ selector: String, _ arguments: [ValueExpression], _ evaluate: (ValueExpression) throws -> EvaluationValue
    ) throws -> EvaluationValue?

    init(source: any ObjectSource, variables: [String: EvaluationValue] = [:]) {
        self.source = source
        self.variables = variables
    }

    // MARK: Predicates

    func evaluate(_ predicate: FetchPredicate, on object: EvaluationValue) throws -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .not(let inner): return !(try evaluate(inner, on: object))
        case .and(let terms):
            for term in terms where !(try evaluate(term, on: object)) { return false }
            return true
        case .or(let terms):
            for term in terms where try evaluate(term, on: object) { return true }
            return false
        case .comparison(let comparison):
            return try evaluate(comparison, on: object)
        }
    }

    private func evaluate(_ comparison: FetchPredicate.Comparison, on object: EvaluationValue) throws -> Bool {
        let lhs = try value(comparison.lhs, on: object)
        let rhs = try value(comparison.rhs, on: object)
        switch comparison.modifier {
        case .any: return try lhs.elements.contains { try compare($0, comparison.op, rhs, comparison.options) }
        case .all: return try lhs.elements.allSatisfy { try compare($0, comparison.op, rhs, comparison.options) }
        case .none: return try !lhs.elements.contains { try compare($0, comparison.op, rhs, comparison.options) }
        case .direct:
            if case .collection(let elements) = lhs, comparison.op != .contains {
                if case .collection = rhs, comparison.op == .equal || comparison.op == .notEqual {
                    return try compare(lhs, comparison.op, rhs, comparison.options)
                }
                return try elements.contains { try compare($0, comparison.op, rhs, comparison.options) }
            }
            return try compare(lhs, comparison.op, rhs, comparison.options)
        }
    }

    func compare(
        _ lhs: EvaluationValue, _ op: FetchPredicate.Operator, _ rhs: EvaluationValue, _ options: FetchPredicate.Options
    ) throws -> Bool {
        try Self.compare(lhs, op, rhs, options, patterns: patterns)
    }

    /// The comparison itself, for the evaluator and for the SQL functions the SQLite store
    /// registers (so that a condition run in SQL decides exactly as here).
    static func compare(
        _ lhs: EvaluationValue, _ op: FetchPredicate.Operator, _ rhs: EvaluationValue, _ options: FetchPredicate.Options,
        patterns: PatternCache
    ) throws -> Bool {
        switch op {
        case .equal: return Self.equal(lhs, rhs, options)
        case .notEqual: return !Self.equal(lhs, rhs, options)
        case .lessThan: return Self.order(lhs, rhs, options) == .orderedAscending
        case .lessThanOrEqual: return [.orderedAscending, .orderedSame].contains(Self.order(lhs, rhs, options))
        case .greaterThan: return Self.order(lhs, rhs, options) == .orderedDescending
        case .greaterThanOrEqual: return [.orderedDescending, .orderedSame].contains(Self.order(lhs, rhs, options))
        case .beginsWith, .endsWith:
            guard case .string(let text) = lhs, case .string(let affix) = rhs else { return false }
            let (a, b) = (Array(Self.fold(text, options).utf8), Array(Self.fold(affix, options).utf8))
            return op == .beginsWith ? a.starts(with: b) : a.reversed().starts(with: b.reversed())
        case .contains:
            if case .string(let text) = lhs, case .string(let part) = rhs {
                return Self.literallyContains(Self.fold(text, options), Self.fold(part, options))
            }
            return lhs.elements.contains { Self.equal($0, rhs, options) }
        case .like:
            guard case .string(let text) = lhs, case .string(let pattern) = rhs else { return false }
            return try patterns.matches(text, like: pattern, options: options)
        case .matches:
            guard case .string(let text) = lhs, case .string(let pattern) = rhs else { return false }
            return try patterns.matches(text, regex: pattern, options: options)
        case .in:
            if case .string(let part) = lhs, case .string(let text) = rhs {
                return Self.literallyContains(Self.fold(text, options), Self.fold(part, options))
            }
            return rhs.elements.contains { Self.equal(lhs, $0, options) }
        case .between:
            let bounds = rhs.elements
            guard bounds.count == 2 else {
                throw FetchPredicateError(.evaluation, "BETWEEN needs a list of two values, like {1, 10}")
            }
            let lower = Self.order(lhs, bounds[0], options)
            let upper = Self.order(lhs, bounds[1], options)
            return (lower == .orderedDescending || lower == .orderedSame) && (upper == .orderedAscending || upper == .orderedSame)
        }
    }

    /// Whether `part`'s UTF-8 bytes occur in `text`'s (an empty string occurs in every one).
    static func literallyContains(_ text: String, _ part: String) -> Bool {
        text.utf8.firstRange(of: part.utf8) != nil
    }

    /// Strings compare by their Unicode scalars (in UTF-8 byte order), not by Swift's canonical
    /// equivalence: as Core Data's SQLite store compares them (SQLite's `BINARY` collation), so
    /// that a condition run in SQL and one evaluated here agree on every store. "é" as one
    /// scalar and as "e" + a combining accent are different strings, as in Core Data's store.
    static func literalOrder(_ a: String, _ b: String) -> ComparisonResult {
        // Byte by byte (UTF-8's byte order is its code points' order), with memcmp on the
        // strings' own storage: a sort of 100,000 titles makes 1.7 million of these.
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let shared = min(x.count, y.count)
                let difference = shared == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, shared)
                if difference != 0 { return difference < 0 ? .orderedAscending : .orderedDescending }
                return x.count == y.count ? .orderedSame : x.count < y.count ? .orderedAscending : .orderedDescending
            }
        }
    }

    static func fold(_ text: String, _ options: FetchPredicate.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) || options.contains(.normalized) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) || options.contains(.normalized) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? text : text.folding(options: folding, locale: nil)
    }

    static func equal(_ lhs: EvaluationValue, _ rhs: EvaluationValue, _ options: FetchPredicate.Options = []) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let a), .string(let b)): return fold(a, options).utf8.elementsEqual(fold(b, options).utf8)
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.uri(let a), .uri(let b)): return a == b
        case (.collection(let a), .collection(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1, options) }
        default: break
        }
        if let a = lhs.objectID, let b = rhs.objectID { return a == b }
        if case .integer(let a) = lhs, case .integer(let b) = rhs { return a == b }
        if case .decimal(let a) = lhs, case .decimal(let b) = rhs { return a == b }
        if let a = lhs.number, let b = rhs.number { return a == b }
        return false
    }

    static func order(_ lhs: EvaluationValue, _ rhs: EvaluationValue, _ options: FetchPredicate.Options = []) -> ComparisonResult? {
        func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return literalOrder(fold(a, options), fold(b, options))
        case (.date(let a), .date(let b)): return order(a, b)
        case (.integer(let a), .integer(let b)): return order(a, b)
        case (.decimal(let a), .decimal(let b)): return order(a, b)
        case (.uuid(let a), .uuid(let b)): return order(a.uuidString, b.uuidString)
        default: break
        }
        if let a = lhs.number, let b = rhs.number { return order(a, b) }
        return nil
    }
}

/// Compiled LIKE and MATCHES patterns, reused across the rows of one fetch.
final class PatternCache {
    private var expressions: [String: NSRegularExpression] = [:]

    func matches(_ text: String, like pattern: String, options: FetchPredicate.Options) throws -> Bool {
        var regex = "^"
        var escaped = false
        for character in pattern {
            if escaped {
                regex += NSRegularExpression.escapedPattern(for: String(character))
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "*": regex += ".*"
            case "?": regex += "."
            default: regex += NSRegularExpression.escapedPattern(for: String(character))
            }
        }
        return try matches(text, regex: regex + "$", options: options, anchored: true)
    }

    func matches(_ text: String, regex pattern: String, options: FetchPredicate.Options, anchored: Bool = false) throws -> Bool {
        let folded = PredicateEvaluator.fold(text, options.subtracting(.caseInsensitive))
        let key = "\(options.rawValue)|\(anchored)|\(pattern)"
        let expression: NSRegularExpression
        if let cached = expressions[key] {
            expression = cached
        } else {
            do {
                expression = try NSRegularExpression(
                    pattern: anchored ? pattern : "^(?:\(pattern))$",
                    options: options.contains(.caseInsensitive) || options.contains(.normalized) ? [.caseInsensitive] : [])
            } catch {
                throw FetchPredicateError(.evaluation, "the regular expression '\(pattern)' does not compile")
            }
            expressions[key] = expression
        }
        return expression.firstMatch(in: folded, range: NSRange(folded.startIndex..., in: folded)) != nil
    }
}
