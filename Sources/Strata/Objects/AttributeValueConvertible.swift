import Foundation

/// A Swift type that typed attribute accessors (``Attribute``) can read and write.
///
/// Strata makes the numeric types, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`,
/// ``ManagedObjectID`` and their optionals convertible. For a transformable attribute, make a
/// `Codable` type conform to ``TransformableAttribute``; arrays and dictionaries of `Codable`
/// values already do.
public protocol AttributeValueConvertible {
    /// The Swift value for a stored one; `nil` when it does not convert (or is missing, for a
    /// non-optional type).
    static func fromAttributeValue(_ value: AttributeValue?) -> Self?
    /// The stored form of the value; `nil` for no value.
    var attributeValue: AttributeValue? { get }
}

/// A `Codable` value stored in a transformable attribute, as JSON.
public protocol TransformableAttribute: Codable, AttributeValueConvertible {}

extension TransformableAttribute {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .transformable(let data)? = value else { return nil }
        return try? JSONDecoder.transformable.decode(Self.self, from: data)
    }

    public var attributeValue: AttributeValue? {
        (try? JSONEncoder.transformable.encode(self)).map(AttributeValue.transformable)
    }
}

extension Array: AttributeValueConvertible, TransformableAttribute where Element: Codable {}
extension Dictionary: AttributeValueConvertible, TransformableAttribute where Key: Codable, Value: Codable {}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard let value else { return .some(nil) }
        return Wrapped.fromAttributeValue(value).map { .some($0) }
    }

    public var attributeValue: AttributeValue? { self?.attributeValue }
}

extension Int: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? { value?.integerValue.flatMap(Int.init(exactly:)) }
    public var attributeValue: AttributeValue? { .integer64(Int64(self)) }
}

extension Int16: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? { value?.integerValue.flatMap(Int16.init(exactly:)) }
    public var attributeValue: AttributeValue? { .integer16(self) }
}

extension Int32: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? { value?.integerValue.flatMap(Int32.init(exactly:)) }
    public var attributeValue: AttributeValue? { .integer32(self) }
}

extension Int64: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? { value?.integerValue }
    public var attributeValue: AttributeValue? { .integer64(self) }
}

extension Double: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .double(let double)? = value?.converted(to: .double) else { return nil }
        return double
    }
    public var attributeValue: AttributeValue? { .double(self) }
}

extension Float: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .float(let float)? = value?.converted(to: .float) else { return nil }
        return float
    }
    public var attributeValue: AttributeValue? { .float(self) }
}

extension Decimal: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .decimal(let decimal)? = value?.converted(to: .decimal) else { return nil }
        return decimal
    }
    public var attributeValue: AttributeValue? { .decimal(self) }
}

extension String: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .string(let string)? = value else { return nil }
        return string
    }
    public var attributeValue: AttributeValue? { .string(self) }
}

extension Bool: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .boolean(let bool)? = value else { return nil }
        return bool
    }
    public var attributeValue: AttributeValue? { .boolean(self) }
}

extension Date: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .date(let date)? = value else { return nil }
        return date
    }
    public var attributeValue: AttributeValue? { .date(self) }
}

extension Data: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        switch value {
        case .binaryData(let data)?, .transformable(let data)?: data
        default: nil
        }
    }
    public var attributeValue: AttributeValue? { .binaryData(self) }
}

extension UUID: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .uuid(let uuid)? = value else { return nil }
        return uuid
    }
    public var attributeValue: AttributeValue? { .uuid(self) }
}

extension URL: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .uri(let url)? = value else { return nil }
        return url
    }
    public var attributeValue: AttributeValue? { .uri(self) }
}

extension ManagedObjectID: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .objectID(let id)? = value else { return nil }
        return id
    }
    public var attributeValue: AttributeValue? { .objectID(self) }
}
