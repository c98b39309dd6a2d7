import Foundation

extension AttributeValue {
    /// Orders two values of comparable kinds (numbers with numbers, strings, dates, UUIDs…);
    /// `nil` when they have no order between them.
    func compare(to other: AttributeValue) -> ComparisonResult? {
        switch (self, other) {
        case (.string(let a), .string(let b)): return PredicateEvaluator.literalOrder(a, b)
        case (.date(let a), .date(let b)): return Self.order(a, b)
        case (.boolean(let a), .boolean(let b)): return Self.order(a ? 1 : 0, b ? 1 : 0)
        case (.uuid(let a), .uuid(let b)): return Self.order(a.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return Self.order(a.absoluteString, b.absoluteString)
        case (.decimal(let a), .decimal(let b)): return Self.order(a, b)
        default: break
        }
        if let a = integerValue, let b = other.integerValue { return Self.order(a, b) }
        if let a = doubleValue, let b = other.doubleValue { return Self.order(a, b) }
        return nil
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }
}
