/// A token of a predicate format string, with the column it starts at.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        /// A reserved word, upper-cased (AND, OR, IN, ANY, SELF, …).
        case keyword(String)
        case string(String)
        case integer(Int64)
        case real(Double)
        /// `%@`, `%K`, `%d`, … (the letters after `%`).
        case argument(String)
        case variable(String)
        /// `@count`, `@sum`, … (without the `@`).
        case collectionOperator(String)
        case symbol(String)
        case end
    }

    let kind: Kind
    let column: Int
}
