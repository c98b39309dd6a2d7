import Foundation

/// A stored attribute value: one case per ``AttributeType``.
///
/// Rows in the store and in contexts hold attribute values in this form; typed accessors convert
/// to and from Swift types through ``AttributeValueConvertible``.
public enum AttributeValue: Sendable, Hashable {
    case integer16(Int16)
    case integer32(Int32)
    case integer64(Int64)
    case decimal(Decimal)
    case double(Double)
    case float(Float)
    case string(String)
    case boolean(Bool)
    case date(Date)
    case binaryData(Data)
    case uuid(UUID)
    case uri(URL)
    /// A transformable attribute's stored bytes: what its value transformer made of the value
    /// (Core Data's keyed archive by default; JSON that Strata stored before reads too).
    case transformable(Data)
    /// Keep every payload at most 20 bytes (a `Decimal`'s): a value then takes 24 bytes in a
    /// row. When an object ID was 41 bytes inline, every attribute value of every row was 48.
    case objectID(ManagedObjectID)
    /// Binary data a store keeps in a file of its own whose file could not be read: the
    /// reference stays in the object, and a save writes it back unchanged. Reading it with
    /// ``ManagedObject/value(forKey:)`` throws the ``StoreError`` that says which file.
    case externalDataReference(ExternalDataReference)

    /// The attribute type this value belongs to.
    public var type: AttributeType {
        switch self {
        case .integer16: .integer16
        case .integer32: .integer32
        case .integer64: .integer64
        case .decimal: .decimal
        case .double: .double
        case .float: .float
        case .string: .string
        case .boolean: .boolean
        case .date: .date
        case .binaryData: .binaryData
        case .uuid: .uuid
        case .uri: .uri
        case .transformable: .transformable
        case .objectID: .objectID
        case .externalDataReference: .binaryData
        }
    }

    /// The zero value of a type (`0`, `""`, `false`, the reference date, empty data, the nil
    /// UUID): what an object the store cannot give reads as where its model has no default.
    /// `nil` for types with no zero (object IDs, URIs, undefined and composite attributes).
    package static func zero(of type: AttributeType) -> AttributeValue? {
        switch type {
        case .integer16: .integer16(0)
        case .integer32: .integer32(0)
        case .integer64: .integer64(0)
        case .decimal: .decimal(0)
        case .double: .double(0)
        case .float: .float(0)
        case .string: .string("")
        case .boolean: .boolean(false)
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .binaryData: .binaryData(Data())
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .transformable: .transformable(Data())
        case .uri, .objectID, .undefined, .composite: nil
        }
    }

    /// The value as Core Data's key-value coding gives it (``ManagedObject/value(forKey:)``,
    /// ``ManagedObject/changedValues()``, dictionary results): numbers as `NSNumber`, so that
    /// `as? Int`, `as? Int16`, `as? Double` or `as? NSNumber` read a number of any stored width,
    /// as they read Core Data's (a Swift `Int16` would not cast to `Int`); other values as
    /// ``anyValue``.
    public var keyValue: any Sendable {
        switch self {
        case .integer16(let v): NSNumber(value: v)
        case .integer32(let v): NSNumber(value: v)
        case .integer64(let v): NSNumber(value: v)
        case .double(let v): NSNumber(value: v)
        case .float(let v): NSNumber(value: v)
        default: anyValue
        }
    }

    /// The value in its own Swift type: `Int16` for an Integer 16 value, `Double`, `String` ….
    public var anyValue: any Sendable {
        switch self {
        case .integer16(let v): v
        case .integer32(let v): v
        case .integer64(let v): v
        case .decimal(let v): v
        case .double(let v): v
        case .float(let v): v
        case .string(let v): v
        case .boolean(let v): v
        case .date(let v): v
        case .binaryData(let v): v
        case .uuid(let v): v
        case .uri(let v): v
        case .transformable(let v): v
        case .objectID(let v): v
        case .externalDataReference(let v): v
        }
    }

    /// An integer value of any width, for conversions between integer types.
    var integerValue: Int64? {
        switch self {
        case .integer16(let v): Int64(v)
        case .integer32(let v): Int64(v)
        case .integer64(let v): v
        default: nil
        }
    }

    /// A number of any kind as a `Double`, for comparisons with validation bounds.
    var doubleValue: Double? {
        switch self {
        case .integer16(let v): Double(v)
        case .integer32(let v): Double(v)
        case .integer64(let v): Double(v)
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        case .double(let v): v
        case .float(let v): Double(v)
        default: nil
        }
    }
}
