/// The storage type of an attribute.
///
/// The raw values are the names Xcode writes in a model file's `attributeType`, so a model read
/// from an `.xcdatamodel` and one written in Swift describe their types in the same words.
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binaryData = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    /// A `Codable` value, stored as its JSON encoding.
    case transformable = "Transformable"
    case objectID = "Object ID"
    /// Xcode's "Undefined": a transient attribute that holds a value of any type, as Core Data
    /// allows for transient attributes only.
    case undefined = "Undefined"
    /// A group of attributes stored as one (Core Data's `NSCompositeAttributeDescription`); see
    /// ``AttributeDescription/compositeElements``. It is set from a `[String: Any]` dictionary of
    /// its elements (or its JSON), and Strata keeps and returns the dictionary's JSON encoding as
    /// `Data`, as it does a transformable value; Core Data returns the dictionary itself.
    case composite = "Composite"

    /// The kind of ``AttributeValue`` an attribute of this type holds: a composite's is
    /// `.transformable` (the JSON of its elements); an undefined attribute's is any kind (`nil`).
    var valueType: AttributeType? {
        switch self {
        case .composite: .transformable
        case .undefined: nil
        default: self
        }
    }

    /// Whether values of this type have an order (numbers, dates, strings, UUIDs) that
    /// minimum and maximum validation rules can use.
    var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }
}
