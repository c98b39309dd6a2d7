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

    public init(key: String, ascending: Bool = true, options: FetchPredicate.Options = []) {
        self.key = key
        self.ascending = ascending
        self.options = options
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
