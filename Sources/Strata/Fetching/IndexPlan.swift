import Foundation

/// How a fetch can use an index: the indexed attribute, and which values to look up. Found in
/// a predicate's top-level comparisons (alone, or among AND terms): equality, `IN`, ranges,
/// `BETWEEN` and `BEGINSWITH`, on an indexed attribute against constants, without string
/// options. The predicate is still evaluated on every candidate, so the index only narrows.
struct IndexPlan {
    enum Lookup {
        case values([AttributeValue?])
        case range(lower: AttributeValue?, lowerInclusive: Bool, upper: AttributeValue?, upperInclusive: Bool)
        case prefix(String)
    }

    let slot: Int
    let lookup: Lookup

    init?(predicate: FetchPredicate?, layout: EntityLayout) {
        guard let predicate, !layout.indexedAttributes.isEmpty else { return nil }
        let terms: [FetchPredicate] = if case .and(let terms) = predicate { terms } else { [predicate] }
        for term in terms {
            guard case .comparison(let comparison) = term, let plan = Self.plan(comparison, layout) else { continue }
            self = plan
            return
        }
        return nil
    }

    private init(slot: Int, lookup: Lookup) {
        self.slot = slot
        self.lookup = lookup
    }

    private static func plan(_ comparison: FetchPredicate.Comparison, _ layout: EntityLayout) -> IndexPlan? {
        guard comparison.modifier == .direct, comparison.options.isEmpty else { return nil }
        var op = comparison.op
        let key: String
        let constant: PredicateValue
        switch (comparison.lhs, comparison.rhs) {
        case (.key(.evaluatedObject, let name), .constant(let value)):
            key = name
            constant = value
        case (.key(.evaluatedObject, let name), .aggregate(let items)):
            // A literal list, `rank IN {1, 2, 3}`, is as constant as one passed with `%@`.
            var values: [PredicateValue] = []
            for item in items {
                guard case .constant(let value) = item else { return nil }
                values.append(value)
            }
            key = name
            constant = .collection(values)
        case (.constant(let value), .key(.evaluatedObject, let name)):
            let flipped: [FetchPredicate.Operator: FetchPredicate.Operator] = [
                .equal: .equal, .lessThan: .greaterThan, .lessThanOrEqual: .greaterThanOrEqual,
                .greaterThan: .lessThan, .greaterThanOrEqual: .lessThanOrEqual,
            ]
            guard let reversed = flipped[op] else { return nil }
            op = reversed
            key = name
            constant = value
        default:
            return nil
        }
        guard case .attribute(let slot)? = layout.slots[key], layout.indexedAttributes.contains(slot) else { return nil }
        let type = layout.attributes[slot].type
        func convert(_ value: PredicateValue) -> AttributeValue?? {
            if case .null = value { return .some(nil) }
            guard let attribute = value.attributeValue?.converted(to: type) else { return nil }
            return .some(attribute)
        }
        switch op {
        case .equal:
            guard let value = convert(constant) else { return nil }
            return IndexPlan(slot: slot, lookup: .values([value]))
        case .in:
            guard case .collection(let items) = constant else { return nil }
            // A list may name a value twice (`IN {7, 7}`, or `{7, 7.0}` on an integer): each
            // value is looked up once, or its objects would be fetched twice.
            var values: [AttributeValue?] = []
            var seen: Set<AttributeValue?> = []
            for item in items {
                guard let value = convert(item) else { return nil }
                if seen.insert(value).inserted { values.append(value) }
            }
            return IndexPlan(slot: slot, lookup: .values(values))
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard let converted = convert(constant), let value = converted else { return nil }
            let below = op == .lessThan || op == .lessThanOrEqual
            return IndexPlan(
                slot: slot,
                lookup: .range(
                    lower: below ? nil : value, lowerInclusive: op == .greaterThanOrEqual,
                    upper: below ? value : nil, upperInclusive: op == .lessThanOrEqual))
        case .between:
            guard case .collection(let bounds) = constant, bounds.count == 2,
                let low = convert(bounds[0]), let lower = low, let high = convert(bounds[1]), let upper = high
            else { return nil }
            return IndexPlan(slot: slot, lookup: .range(lower: lower, lowerInclusive: true, upper: upper, upperInclusive: true))
        case .beginsWith:
            guard type == .string, case .string(let prefix) = constant else { return nil }
            return IndexPlan(slot: slot, lookup: .prefix(prefix))
        default:
            return nil
        }
    }

    /// The references of one index that the lookup selects.
    func references(in index: AttributeIndex) -> [Int64] {
        switch lookup {
        case .values(let values):
            return values.flatMap { index.references(equalTo: $0) }
        case .range(let lower, let lowerInclusive, let upper, let upperInclusive):
            let entries = index.sortedEntries()
            var start = 0
            if let lower {
                start = Self.firstIndex(in: entries) { entry in
                    let order = entry.compare(to: lower)
                    return lowerInclusive ? order != .orderedAscending : order == .orderedDescending
                }
            }
            var end = entries.count
            if let upper {
                end = Self.firstIndex(in: entries) { entry in
                    let order = entry.compare(to: upper)
                    return upperInclusive ? order == .orderedDescending : order != .orderedAscending
                }
            }
            return start < end ? entries[start..<end].map(\.1) : []
        case .prefix(let prefix):
            let entries = index.sortedEntries()
            let start = Self.firstIndex(in: entries) { $0.compare(to: .string(prefix)) != .orderedAscending }
            var references: [Int64] = []
            for (value, reference) in entries[start...] {
                guard case .string(let text) = value, text.utf8.starts(with: prefix.utf8) else { break }
                references.append(reference)
            }
            return references
        }
    }

    /// The first position whose value satisfies `isPast` (which must be false, then true, along the list).
    private static func firstIndex(in entries: [(AttributeValue, Int64)], where isPast: (AttributeValue) -> Bool) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(entries[middle].0) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension PredicateValue {
    /// The value as an attribute value, before conversion to the attribute's type.
    var attributeValue: AttributeValue? {
        switch self {
        case .bool(let v): .boolean(v)
        case .integer(let v): .integer64(v)
        case .double(let v): .double(v)
        case .decimal(let v): .decimal(v)
        case .string(let v): .string(v)
        case .date(let v): .date(v)
        case .data(let v): .binaryData(v)
        case .uuid(let v): .uuid(v)
        case .uri(let v): .uri(v)
        case .objectID(let v): .objectID(v)
        case .null, .collection: nil
        }
    }
}
