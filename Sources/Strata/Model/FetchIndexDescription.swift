/// A fetch index on an entity: a named, ordered list of properties that fetches can use.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One property (or expression) of an index, with its sort order.
    public struct Element: Sendable, Hashable {
        /// The indexed property; empty when the element indexes an ``expression``.
        public var propertyName: String
        /// An expression the element indexes instead of a property, as the model file wrote it.
        public var expression: String?
        public var isAscending: Bool
        /// Whether the element is a spatial (R-tree) index rather than a binary one.
        public var isRTree = false

        public init(_ propertyName: String, ascending: Bool = true) {
            self.propertyName = propertyName
            self.isAscending = ascending
        }

        /// An element that indexes an expression.
        public init(expression: String, ascending: Bool = true) {
            self.propertyName = ""
            self.expression = expression
            self.isAscending = ascending
        }
    }

    public var name: String
    public var elements: [Element]
    /// Whether the index is a legacy compound index (`<compoundIndexes>` in older model files),
    /// which Core Data's SQLite store names by its properties rather than by its name.
    public var isCompoundIndex = false

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
