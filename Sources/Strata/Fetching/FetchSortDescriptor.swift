/// How to order fetch results: by a property's value, ascending or descending.
///
/// (Named so as not to collide with Foundation's `SortDescriptor`.) `nil` values sort before
/// every other value, as in Core Data.
public struct FetchSortDescriptor: Sendable, Hashable {
    /// The attribute to sort by.
    public var key: String
    public var ascending: Bool

    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Sorts by `key`, smallest first.
    public static func ascending(_ key: String) -> Self { Self(key: key, ascending: true) }
    /// Sorts by `key`, largest first.
    public static func descending(_ key: String) -> Self { Self(key: key, ascending: false) }
}
