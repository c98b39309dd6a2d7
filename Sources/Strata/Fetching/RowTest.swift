import Foundation

/// A predicate made of plain comparisons (an attribute of the object against a constant, joined
/// by AND, OR and NOT), compiled for one entity into a test on rows: no key lookups, no object
/// references, no values boxed for the general evaluator. Scans use it; anything else falls
/// back to ``PredicateEvaluator``, with the same results (the semantics below are its own).
struct RowTest {
    private indirect enum Node {
        case constant(Bool)
        case not(Node)
        case and([Node])
        case or([Node])
        case integer(slot: Int, FetchPredicate.Operator, Int64)
        case real(slot: Int, FetchPredicate.Operator, Double)
        case string(slot: Int, FetchPredicate.Operator, String)
        case date(slot: Int, FetchPredicate.Operator, Date)
        case isNil(slot: Int, Bool)
    }

    private let root: Node

    init?(_ predicate: FetchPredicate, layout: EntityLayout) {
        guard let root = Self.compile(predicate, layout) else { return nil }
        self.root = root
    }

    func matches(_ row: some SlotValues) -> Bool {
        Self.evaluate(root, row)
    }

    private static func compile(_ predicate: FetchPredicate, _ layout: EntityLayout) -> Node? {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .not(let inner): return compile(inner, layout).map(Node.not)
        case .and(let terms):
            let nodes = terms.compactMap { compile($0, layout) }
            return nodes.count == terms.count ? .and(nodes) : nil
        case .or(let terms):
            let nodes = terms.compactMap { compile($0, layout) }
            return nodes.count == terms.count ? .or(nodes) : nil
        case .comparison(let comparison):
            guard comparison.modifier == .direct, comparison.options.isEmpty,
                case .key(.evaluatedObject, let key) = comparison.lhs, case .constant(let constant) = comparison.rhs,
                case .attribute(let slot)? = layout.slots[key],
                [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(comparison.op)
            else { return nil }
            let op = comparison.op
            let type = layout.attributes[slot].type
            switch (type, constant) {
            case (_, .null) where op == .equal || op == .notEqual:
                return .isNil(slot: slot, op == .equal)
            case (.integer16, .integer(let value)), (.integer32, .integer(let value)), (.integer64, .integer(let value)):
                return .integer(slot: slot, op, value)
            case (.integer16, .double(let value)), (.integer32, .double(let value)), (.integer64, .double(let value)),
                (.double, .double(let value)), (.float, .double(let value)):
                return .real(slot: slot, op, value)
            case (.double, .integer(let value)), (.float, .integer(let value)):
                return .real(slot: slot, op, Double(value))
            case (.string, .string(let value)):
                return .string(slot: slot, op, value)
            case (.date, .date(let value)):
                return .date(slot: slot, op, value)
            default:
                return nil
            }
        }
    }

    private static func evaluate(_ node: Node, _ row: some SlotValues) -> Bool {
        switch node {
        case .constant(let value): return value
        case .not(let inner): return !evaluate(inner, row)
        case .and(let nodes): return nodes.allSatisfy { evaluate($0, row) }
        case .or(let nodes): return nodes.contains { evaluate($0, row) }
        case .isNil(let slot, let wantsNil): return row.isAbsent(slot) == wantsNil
        case .integer(let slot, let op, let constant):
            guard let value = row.integer(slot) else { return op == .notEqual }
            return compare(value, op, constant)
        case .real(let slot, let op, let constant):
            guard let value = row.real(slot) else { return op == .notEqual }
            return compare(value, op, constant)
        case .string(let slot, let op, let constant):
            guard let value = row.string(slot) else { return op == .notEqual }
            return compare(PredicateEvaluator.literalOrder(value, constant), op)
        case .date(let slot, let op, let constant):
            guard let value = row.date(slot) else { return op == .notEqual }
            return compare(value, op, constant)
        }
    }

    private static func compare(_ order: ComparisonResult, _ op: FetchPredicate.Operator) -> Bool {
        switch op {
        case .equal: order == .orderedSame
        case .notEqual: order != .orderedSame
        case .lessThan: order == .orderedAscending
        case .lessThanOrEqual: order != .orderedDescending
        case .greaterThan: order == .orderedDescending
        case .greaterThanOrEqual: order != .orderedAscending
        default: false
        }
    }

    private static func compare<T: Comparable>(_ value: T, _ op: FetchPredicate.Operator, _ constant: T) -> Bool {
        switch op {
        case .equal: value == constant
        case .notEqual: value != constant
        case .lessThan: value < constant
        case .lessThanOrEqual: value <= constant
        case .greaterThan: value > constant
        case .greaterThanOrEqual: value >= constant
        default: false
        }
    }
}
