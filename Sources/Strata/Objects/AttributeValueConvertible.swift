import Foundation

/// A Swift type that typed attribute accessors (``Attribute``) can read and write.
///
/// Strata makes the numeric types, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`,
/// ``ManagedObjectID`` and their optionals convertible. For a transformable attribute, make a
/// `Codable` type conform to ``TransformableAttribute``; arrays, sets and dictionaries of
/// `Codable` values already do. `Data` reads and writes a transformable attribute's stored bytes
/// as they are (an archive Strata cannot decode, kept for another program to).
public protocol AttributeValueConvertible {
    /// The Swift value for a stored one; `nil` when it does not convert (or is missing, for a
    /// non-optional type).
    static func fromAttributeValue(_ value: AttributeValue?) -> Self?
    /// The stored form of the value; `nil` for no value.
    var attributeValue: AttributeValue? { get }
    /// The Swift value for a stored value of `attribute`: for a transformable attribute, through
    /// its value transformer. By default, ``fromAttributeValue(_:)``.
    ///
    /// - Throws: ``TransformableValueError`` when the stored value cannot be made one.
    static func fromAttributeValue(_ value: AttributeValue?, of attribute: AttributeDescription) throws -> Self?
    /// The stored form of the value for `attribute`. By default, ``attributeValue``.
    func attributeValue(for attribute: AttributeDescription) throws -> AttributeValue?
}

extension AttributeValueConvertible {
    /// Through a transformable attribute's transformer for a `Decodable` type other than `Data`
    /// (an archived `NSString` reads as a `String`); otherwise ``fromAttributeValue(_:)``.
    public static func fromAttributeValue(_ value: AttributeValue?, of attribute: AttributeDescription) throws -> Self? {
        if case .transformable(let data)? = value, Self.decodesTransformables(attribute), let type = Self.self as? any Decodable.Type {
            return try attribute.transformableCoding.value(fromStored: data, as: type) as? Self
        }
        return fromAttributeValue(value)
    }

    /// Through a transformable attribute's transformer for an `Encodable` type other than `Data`;
    /// otherwise ``attributeValue``.
    public func attributeValue(for attribute: AttributeDescription) throws -> AttributeValue? {
        if Self.decodesTransformables(attribute), let encodable = self as? any Encodable {
            return .transformable(try attribute.transformableCoding.storedData(encoding: encodable))
        }
        return attributeValue
    }

    /// Whether values of this type go through `attribute`'s transformer: `Data` stands for the
    /// stored bytes themselves.
    static func decodesTransformables(_ attribute: AttributeDescription) -> Bool {
        attribute.type == .transformable && Self.self != Data.self
    }
}

/// A `Codable` value stored in a transformable attribute through the attribute's value
/// transformer, as Core Data stores it: by default (no transformer named, or
/// `NSSecureUnarchiveFromData`) an `NSKeyedArchiver` archive in which arrays, sets and
/// dictionaries are Foundation's collections and a structure a dictionary of its coding keys
/// (``ArchivedValue``); JSON when the model names `StrataJSONTransformer`; otherwise what the
/// ``ValueTransformer`` registered under the attribute's transformer name makes of it. JSON
/// Strata stored before it wrote archives still reads.
public protocol TransformableAttribute: Codable, AttributeValueConvertible {}

extension TransformableAttribute {
    /// The value, without an attribute to say how it is stored: a keyed archive, or JSON.
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard case .transformable(let data)? = value else { return nil }
        return try? TransformableCoding.keyedArchive.value(fromStored: data, as: Self.self)
    }

    /// The value as a keyed archive, without an attribute to say how to store it.
    public var attributeValue: AttributeValue? {
        (try? TransformableCoding.keyedArchive.storedData(encoding: self)).map(AttributeValue.transformable)
    }

    public static func fromAttributeValue(_ value: AttributeValue?, of attribute: AttributeDescription) throws -> Self? {
        guard case .transformable(let data)? = value else { return fromAttributeValue(value) }
        return try attribute.transformableCoding.value(fromStored: data, as: Self.self)
    }

    public func attributeValue(for attribute: AttributeDescription) throws -> AttributeValue? {
        guard attribute.type == .transformable else { return attributeValue }
        return .transformable(try attribute.transformableCoding.storedData(encoding: self))
    }
}

extension Array: AttributeValueConvertible, TransformableAttribute where Element: Codable {}
extension Set: AttributeValueConvertible, TransformableAttribute where Element: Codable {}
extension Dictionary: AttributeValueConvertible, TransformableAttribute where Key: Codable, Value: Codable {}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        guard let value else { return .some(nil) }
        return Wrapped.fromAttributeValue(value).map { .some($0) }
    }

    public var attributeValue: AttributeValue? { self?.attributeValue }

    public static func fromAttributeValue(_ value: AttributeValue?, of attribute: AttributeDescription) throws -> Self? {
        guard let value else { return .some(nil) }
        guard let wrapped = try Wrapped.fromAttributeValue(value, of: attribute) else {
            // An archived nil (or no bytes) is no value; any other failure threw above.
            if case .transformable = value, Wrapped.decodesTransformables(attribute), Wrapped.self is any Decodable.Type { return .some(nil) }
            return nil
        }
        return .some(wrapped)
    }

    public func attributeValue(for attribute: AttributeDescription) throws -> AttributeValue? {
        try self?.attributeValue(for: attribute)
    }
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
