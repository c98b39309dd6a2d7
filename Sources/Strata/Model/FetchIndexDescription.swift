/// A fetch index on an entity: a named, ordered list of properties that fetches can use.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One property of an index, with its sort order.
    public struct Element: Sendable, Hashable {
        public var propertyName: String
        public var isAscending: Bool

        public init(_ propertyName: String, ascending: Bool = true) {
            self.propertyName = propertyName
            self.isAscending = ascending
        }
    }

    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
