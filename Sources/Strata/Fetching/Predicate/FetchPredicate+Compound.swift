/// Core Data's `NSCompoundPredicate`: in Strata a compound predicate is a ``FetchPredicate``
/// (`.and`, `.or`, `.not`), so Core Data code that builds a filter from parts compiles as it is:
///
/// ```swift
/// var parts = [try FetchPredicate(format: "pages > %d", 100)]
/// if let author { parts.append(try FetchPredicate(format: "author.name == %@", author)) }
/// request.predicate = CompoundPredicate(andPredicateWithSubpredicates: parts)
/// ```
public typealias CompoundPredicate = FetchPredicate

extension FetchPredicate {
    /// How a compound predicate joins its parts: Core Data's `NSCompoundPredicate.LogicalType`.
    public enum LogicalType: Sendable, Hashable {
        case and, or, not
    }

    /// A predicate every part of which holds: Core Data's
    /// `NSCompoundPredicate(andPredicateWithSubpredicates:)`. With no parts it always holds
    /// (`TRUEPREDICATE`), as Core Data's.
    public init(andPredicateWithSubpredicates subpredicates: [FetchPredicate]) {
        self = subpredicates.isEmpty ? .constant(true) : .and(subpredicates)
    }

    /// A predicate one part or more of which holds: Core Data's
    /// `NSCompoundPredicate(orPredicateWithSubpredicates:)`. With no parts it never holds
    /// (`FALSEPREDICATE`), as Core Data's.
    public init(orPredicateWithSubpredicates subpredicates: [FetchPredicate]) {
        self = subpredicates.isEmpty ? .constant(false) : .or(subpredicates)
    }

    /// The negation of a predicate: Core Data's `NSCompoundPredicate(notPredicateWithSubpredicate:)`.
    public init(notPredicateWithSubpredicate subpredicate: FetchPredicate) {
        self = .not(subpredicate)
    }

    /// A compound predicate of `type`: Core Data's `NSCompoundPredicate(type:subpredicates:)`.
    /// A `.not` takes one part (several are taken as their conjunction, negated).
    public init(type: LogicalType, subpredicates: [FetchPredicate]) {
        switch type {
        case .and: self.init(andPredicateWithSubpredicates: subpredicates)
        case .or: self.init(orPredicateWithSubpredicates: subpredicates)
        case .not:
            self = .not(subpredicates.count == 1 ? subpredicates[0] : FetchPredicate(andPredicateWithSubpredicates: subpredicates))
        }
    }

    /// A predicate that always or never holds: Core Data's `NSPredicate(value:)`
    /// (`TRUEPREDICATE`, `FALSEPREDICATE`).
    public init(value: Bool) {
        self = .constant(value)
    }

    /// A compound predicate's parts (Core Data's `subpredicates`); none for a comparison or a
    /// constant.
    public var subpredicates: [FetchPredicate] {
        switch self {
        case .and(let parts), .or(let parts): parts
        case .not(let part): [part]
        case .constant, .comparison: []
        }
    }

    /// How a compound predicate joins its parts (Core Data's `compoundPredicateType`); `nil`
    /// for a comparison or a constant.
    public var compoundPredicateType: LogicalType? {
        switch self {
        case .and: .and
        case .or: .or
        case .not: .not
        case .constant, .comparison: nil
        }
    }
}
