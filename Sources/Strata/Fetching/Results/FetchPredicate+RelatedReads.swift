extension FetchPredicate {
    /// Whether evaluating the predicate may read objects other than the one evaluated: a key
    /// path through a relationship (`author.name`), a subquery, a collection operator. A
    /// fetched results controller then fetches again when other objects change.
    var readsRelatedObjects: Bool {
        switch self {
        case .constant: false
        case .not(let inner): inner.readsRelatedObjects
        case .and(let parts), .or(let parts): parts.contains(where: \.readsRelatedObjects)
        case .comparison(let comparison): comparison.lhs.readsRelatedObjects || comparison.rhs.readsRelatedObjects
        }
    }
}

extension ValueExpression {
    /// Whether the expression may read objects other than the one evaluated (see
    /// ``FetchPredicate/readsRelatedObjects``).
    var readsRelatedObjects: Bool {
        switch self {
        case .constant, .evaluatedObject, .variable, .placeholder: false
        case .key(let base, _):
            if case .evaluatedObject = base { false } else { true }
        case .aggregate(let values): values.contains(where: \.readsRelatedObjects)
        case .function(_, let arguments): arguments.contains(where: \.readsRelatedObjects)
        case .binary(_, let left, let right): left.readsRelatedObjects || right.readsRelatedObjects
        case .unary(_, let operand), .cast(let operand, _): operand.readsRelatedObjects
        default: true
        }
    }
}
