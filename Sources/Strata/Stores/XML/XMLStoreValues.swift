import Foundation

/// Attribute values as Core Data's XML store writes them: `<attribute name type>text</attribute>`.
///
/// The types the real XML files beside the project show (`fixtures/compiled`: Xcode's mapping
/// models are XML stores) are `string` (the text), `int16` (decimal digits), `bool` (`0`/`1`)
/// and `binary` (base64, in lines). The other type names follow the same scheme — Core Data's
/// attribute type in lower case, without spaces — and their texts are [unchecked] against a file
/// Core Data wrote: integers and decimals in decimal digits, floating-point numbers and dates
/// (seconds since 2001) in the shortest text that reads back to the same bits, UUIDs and URIs as
/// text, transformable values as their stored bytes in base64, object IDs as their URIs.
/// Reading accepts any text those types are written with.
enum XMLStoreValues {
    /// The `type` Strata writes for an attribute type, and reads it back by.
    static func typeName(_ type: AttributeType) -> String {
        switch type {
        case .integer16: "int16"
        case .integer32: "int32"
        case .integer64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "bool"
        case .date: "date"
        case .binaryData: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable, .composite: "transformable"
        case .objectID: "objectid"
        case .undefined: "undefined"
        }
    }

    /// A value as the element's text.
    ///
    /// - Throws: `Unwritable` for a string XML 1.0 cannot hold (control characters other than
    ///   tab, line feed and carriage return): a store never drops or alters a value silently.
    static func text(_ value: AttributeValue) throws -> String {
        switch value {
        case .integer16(let v): return String(v)
        case .integer32(let v): return String(v)
        case .integer64(let v): return String(v)
        case .decimal(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .float(let v): return "\(v)"
        case .string(let v): return try escaped(v)
        case .boolean(let v): return v ? "1" : "0"
        case .date(let v): return "\(v.timeIntervalSinceReferenceDate)"
        case .binaryData(let v), .transformable(let v): return v.base64EncodedString(options: .lineLength76Characters)
        case .uuid(let v): return v.uuidString
        case .uri(let v): return try escaped(v.absoluteString)
        case .objectID(let v): return try escaped(v.uriRepresentation().absoluteString)
        case .externalDataReference(let reference):
            throw Unwritable(description: "external data (\(reference)) has no place in an XML store: load its bytes first")
        }
    }

    /// The value of an element of `type` with `text`, for an attribute of `attributeType`.
    static func value(_ text: String, type: String, for attributeType: AttributeType) throws -> AttributeValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func number<T: LosslessStringConvertible>(_ make: (T) -> AttributeValue) throws -> AttributeValue {
            guard let number = T(trimmed) else { throw Unreadable(description: "'\(trimmed)' is not a \(type) value") }
            return make(number)
        }
        switch attributeType {
        case .integer16: return try number(AttributeValue.integer16)
        case .integer32: return try number(AttributeValue.integer32)
        case .integer64: return try number(AttributeValue.integer64)
        case .double: return try number(AttributeValue.double)
        case .float: return try number(AttributeValue.float)
        case .decimal:
            guard let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) else {
                throw Unreadable(description: "'\(trimmed)' is not a decimal value")
            }
            return .decimal(decimal)
        case .string: return .string(text)
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "yes", "true": return .boolean(true)
            case "0", "no", "false": return .boolean(false)
            default: throw Unreadable(description: "'\(trimmed)' is not a bool value")
            }
        case .date:
            guard let seconds = Double(trimmed) else { throw Unreadable(description: "'\(trimmed)' is not a date (seconds since 2001)") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .binaryData, .transformable, .composite:
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else {
                throw Unreadable(description: "the \(type) value is not base64")
            }
            return attributeType == .binaryData ? .binaryData(data) : .transformable(data)
        case .uuid:
            guard let uuid = UUID(uuidString: trimmed) else { throw Unreadable(description: "'\(trimmed)' is not a UUID") }
            return .uuid(uuid)
        case .uri:
            guard let url = URL(string: trimmed) else { throw Unreadable(description: "'\(trimmed)' is not a URI") }
            return .uri(url)
        case .objectID:
            guard let url = URL(string: trimmed), let id = ManagedObjectID(uri: url) else {
                throw Unreadable(description: "'\(trimmed)' is not an object URI")
            }
            return .objectID(id)
        case .undefined:
            throw Unreadable(description: "an undefined attribute holds no value")
        }
    }

    /// `text` with XML's five special characters escaped, and carriage returns (which XML
    /// parsers turn into line feeds) written as character references.
    static func escaped(_ text: String) throws -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\r": result += "&#13;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                throw Unwritable(description: "the text holds the character U+\(String(scalar.value, radix: 16, uppercase: true)), which XML cannot hold")
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    struct Unwritable: Error, CustomStringConvertible {
        let description: String
    }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }
}
