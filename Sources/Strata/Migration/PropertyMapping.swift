
/// How one property of a destination object gets its value, as Core Data's `NSPropertyMapping`.
public struct PropertyMapping: Sendable {
    /// Where the value comes from.
    public enum Value: Sendable {
        /// The source object's property of this name (an attribute, or a relationship's targets).
        case sourceKey(String)
        /// A constant (`nil` for no value).
        case constant(AttributeValue?)
        /// An expression over the source object's own attributes (`firstName + " " + lastName`).
        case expression(ValueExpression)
        /// Swift code, given the source object.
        case closure(@Sendable (MigrationObject) throws -> AttributeValue?)
    }

    /// The destination property's name.
    public var name: String
    public var value: Value

    public init(name: String, value: Value) {
        self.name = name
        self.value = value
    }

    /// Copies the source property `sourceName` (renamed or not).
    public static func copy(_ name: String, from sourceName: String? = nil) -> PropertyMapping {
        PropertyMapping(name: name, value: .sourceKey(sourceName ?? name))
    }
}
