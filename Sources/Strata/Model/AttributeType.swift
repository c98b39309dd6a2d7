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

    /// Whether values of this type have an order (numbers, dates, strings, UUIDs) that
    /// minimum and maximum validation rules can use.
    var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }
}
