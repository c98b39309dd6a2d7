import Foundation
import StrataFileFormats

extension AttributeValue {
    /// The value as a JSON value (for `JSONSerialization`), in the form `strata dump` writes:
    /// numbers and booleans as themselves, dates as ISO 8601 strings that read back exactly
    /// (as many fractional digits as the date needs), binary data and
    /// transformable values' stored bytes (a keyed archive, whatever it holds) as base64,
    /// decimals, UUIDs, URIs and object IDs as strings.
    public var jsonObject: Any {
        switch self {
        case .integer16(let v): Int(v)
        case .integer32(let v): Int(v)
        case .integer64(let v): v
        case .decimal(let v): "\(v)"
        case .double(let v): v
        case .float(let v): Double(v)
        case .string(let v): v
        case .boolean(let v): v
        case .date(let v): ExactDateText.format(v)
        case .binaryData(let v): v.base64EncodedString()
        case .uuid(let v): v.uuidString
        case .uri(let v): v.absoluteString
        case .transformable(let v): v.base64EncodedString()
        case .objectID(let v): v.uriRepresentation().absoluteString
        // No value can stand for bytes that could not be read: `strata dump` leaves the
        // attribute out and lists the file.
        case .externalDataReference: NSNull()
        }
    }

    /// A value of `attribute` from the JSON form ``jsonObject`` writes; for a transformable
    /// attribute, a JSON value that is not the stored bytes in base64 is the value itself, stored
    /// through the attribute's value transformer (Core Data's keyed archive by default).
    ///
    /// - Throws: ``ValidationError`` with code `.wrongType` when the JSON value does not fit.
    public init(jsonObject: Any, for attribute: AttributeDescription) throws {
        if attribute.type == .transformable, (jsonObject as? String).flatMap({ Data(base64Encoded: $0) }) == nil {
            do {
                self = .transformable(try attribute.transformableCoding.storedData(for: jsonObject))
            } catch let error as TransformableValueError {
                throw ValidationError(.wrongType, entity: "", key: attribute.name, error.message)
            }
            return
        }
        try self.init(jsonObject: jsonObject, type: attribute.type)
    }

    /// A value of `type` from the JSON form ``jsonObject`` writes.
    ///
    /// - Throws: ``ValidationError`` with code `.wrongType` when the JSON value is not of that form.
    public init(jsonObject: Any, type: AttributeType) throws {
        func fail() -> ValidationError {
            ValidationError(.wrongType, entity: "", "the JSON value \(jsonObject) is not a \(type.rawValue) value")
        }
        switch type {
        case .integer16, .integer32, .integer64:
            guard let number = jsonObject as? NSNumber, !Self.isBoolean(jsonObject), let integer = Int64(exactly: number.doubleValue),
                let value = AttributeValue.integer64(integer).converted(to: type)
            else { throw fail() }
            self = value
        case .decimal:
            if let text = jsonObject as? String, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                self = .decimal(decimal)
            } else if let number = jsonObject as? NSNumber, !Self.isBoolean(jsonObject) {
                self = .decimal(number.decimalValue)
            } else {
                throw fail()
            }
        case .double:
            guard let number = jsonObject as? NSNumber, !Self.isBoolean(jsonObject) else { throw fail() }
            self = .double(number.doubleValue)
        case .float:
            guard let number = jsonObject as? NSNumber, !Self.isBoolean(jsonObject) else { throw fail() }
            self = .float(number.floatValue)
        case .string:
            guard let text = jsonObject as? String else { throw fail() }
            self = .string(text)
        case .boolean:
            guard Self.isBoolean(jsonObject), let flag = jsonObject as? Bool else { throw fail() }
            self = .boolean(flag)
        case .date:
            guard let text = jsonObject as? String,
                let date = ExactDateText.parse(text)
            else { throw fail() }
            self = .date(date)
        case .binaryData:
            guard let text = jsonObject as? String, let data = Data(base64Encoded: text) else { throw fail() }
            self = .binaryData(data)
        case .uuid:
            guard let text = jsonObject as? String, let uuid = UUID(uuidString: text) else { throw fail() }
            self = .uuid(uuid)
        case .uri:
            guard let text = jsonObject as? String, let url = URL(string: text) else { throw fail() }
            self = .uri(url)
        case .undefined:
            // Any kind of value: the kind its JSON form has.
            if let text = jsonObject as? String {
                self = .string(text)
            } else if Self.isBoolean(jsonObject), let flag = jsonObject as? Bool {
                self = .boolean(flag)
            } else if let number = jsonObject as? NSNumber, let integer = Int64(exactly: number.doubleValue) {
                self = .integer64(integer)
            } else if let number = jsonObject as? NSNumber {
                self = .double(number.doubleValue)
            } else {
                try self.init(jsonObject: jsonObject, type: .transformable)
            }
        case .transformable where (jsonObject as? String).flatMap({ Data(base64Encoded: $0) }) != nil:
            // The stored bytes, as `jsonObject` writes them.
            self = .transformable(Data(base64Encoded: jsonObject as? String ?? "") ?? Data())
        case .transformable, .composite:
            // A value as JSON (what `strata dump` wrote before it wrote the stored bytes).
            guard JSONSerialization.isValidJSONObject([jsonObject]),
                let data = try? JSONSerialization.data(withJSONObject: jsonObject, options: [.fragmentsAllowed, .sortedKeys])
            else { throw fail() }
            self = .transformable(data)
        case .objectID:
            guard let text = jsonObject as? String, let url = URL(string: text), let id = ManagedObjectID(uri: url) else { throw fail() }
            self = .objectID(id)
        }
    }

    /// Whether a JSON value is `true` or `false` rather than a number. (`is Bool` cannot tell:
    /// on Linux the numbers 0 and 1 from `JSONSerialization` cast to `Bool` too.)
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return value is Bool }
        return String(cString: number.objCType) == "c"
    }

    /// ISO 8601 with fractional seconds, so that dates keep their milliseconds.
}
