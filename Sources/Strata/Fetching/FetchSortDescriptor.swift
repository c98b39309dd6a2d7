import Foundation

/// How to order fetch results: by a key path's value (through to-one relationships too),
/// ascending or descending, with case- or diacritic-insensitive string comparison.
///
/// (Named so as not to collide with Foundation's `SortDescriptor`.) `nil` values sort before
/// every other value, as in Core Data.
public struct FetchSortDescriptor: Sendable, Hashable {
    /// The key path to sort by: `"title"`, `"author.name"`.
    public var key: String
    public var ascending: Bool
    /// How strings compare: `.caseInsensitive`, `.diacriticInsensitive`.
    public var options: FetchPredicate.Options
    /// How strings compare, as the selector of Core Data's sort descriptor:
    /// ``SortComparison/localizedStandardCompare`` and kin; ``SortComparison/compare`` unless said.
    public var selector: SortComparison

    public init(key: String, ascending: Bool = true, options: FetchPredicate.Options = []) {
        self.key = key
        self.ascending = ascending
        self.options = options
        self.selector = .compare
    }

    /// Sorts by `key` comparing strings as an `NSString` method does, as Core Data's
    /// `NSSortDescriptor(key: "name", ascending: true, selector: #selector(NSString.localizedStandardCompare(_:)))`
    /// — here `FetchSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)`.
    public init(key: String, ascending: Bool = true, selector: SortComparison) {
        self.init(key: key, ascending: ascending)
        self.selector = selector
    }

    /// Sorts by the property a Swift key path reaches, comparing strings as `selector` does.
    public init<Root: ManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true, selector: SortComparison) {
        self.init(key: KeyPathNames.key(of: keyPath), ascending: ascending, selector: selector)
    }

    /// Whether the stores' own order (strings by code point) is this descriptor's, so a store
    /// may sort by it in its query.
    var sortsAsStores: Bool { options.isEmpty && selector == .compare }

    /// The order of two of the values sorted by: `nil` before every other value, strings by
    /// ``selector`` and ``options``, others by value (ascending; the caller applies ``ascending``).
    func order(_ a: EvaluationValue, _ b: EvaluationValue) -> ComparisonResult {
        switch (a, b) {
        case (.null, .null): .orderedSame
        case (.null, _): .orderedAscending
        case (_, .null): .orderedDescending
        case (.string(let a), .string(let b)): selector.order(a, b, options: options)
        default: PredicateEvaluator.order(a, b, options) ?? .orderedSame
        }
    }

    /// Sorts by the property a Swift key path reaches, as Core Data's
    /// `NSSortDescriptor(keyPath: \Book.title, ascending: true)`: `\Book.title` sorts by
    /// `"title"`, `\Book.author?.name` by `"author.name"`.
    ///
    /// The key path must reach ``Attribute`` and ``Relationship`` properties (to-one on the
    /// way); one that reaches a property of another kind, or reads one through code (a
    /// computed property), is a programmer error and stops the program, as Core Data raises for
    /// a key path that is not `@objc`. Each key path is read once, on an object of no context
    /// (see ``ManagedObject/init(entity:insertInto:)``), and its key kept.
    public init<Root: ManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true, options: FetchPredicate.Options = []) {
        self.init(key: KeyPathNames.key(of: keyPath), ascending: ascending, options: options)
    }

    /// Sorts by `key`, smallest first.
    public static func ascending(_ key: String, options: FetchPredicate.Options = []) -> Self {
        Self(key: key, ascending: true, options: options)
    }

    /// Sorts by `key`, largest first.
    public static func descending(_ key: String, options: FetchPredicate.Options = []) -> Self {
        Self(key: key, ascending: false, options: options)
    }
}
