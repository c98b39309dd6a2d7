import Foundation

/// A constant in a predicate or expression: a literal of the format string, an argument, or a
/// substituted variable. Managed objects given as arguments become their object IDs.
public enum PredicateValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)
    case objectID(ManagedObjectID)
    case collection([PredicateValue])

    /// A constant from a Swift value given as an argument (`%@`) or a variable's value.
    ///
    /// - Throws: ``FetchPredicateError`` with code `.badArgument` for a value a predicate cannot hold.
    public init(argument value: Any?) throws {
        // The commonest arguments by their exact type first, as the cases below would take
        // them: a cast that fails searches the runtime's conformances, a dozen of them before
        // a string's case.
        if let value {
            let type = Swift.type(of: value)
            if type == String.self, let string = value as? String {
                self = .string(string)
                return
            }
            if type == Int.self, let integer = value as? Int {
                self = .integer(Int64(integer))
                return
            }
        }
        switch value {
        case nil, is NSNull: self = .null
        // An `NSNumber` itself (Core Data code passes them to `%@`), by what it holds: before
        // the Swift types below, to which it would cast by value (a 1 to `true`).
        case let number as NSNumber where Swift.type(of: value!) is NSNumber.Type: self = Self(number)
        case let value as PredicateValue: self = value
        case let value as AttributeValue: self = Self(value)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(Int64(value))
        case let value as Int8: self = .integer(Int64(value))
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as UInt8: self = .integer(Int64(value))
        case let value as UInt16: self = .integer(Int64(value))
        case let value as UInt32: self = .integer(Int64(value))
        case let value as UInt:
            guard let integer = Int64(exactly: value) else { throw FetchPredicateError(.badArgument, "the argument \(value) is too large") }
            self = .integer(integer)
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Decimal: self = .decimal(value)
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as UUID: self = .uuid(value)
        case let value as URL: self = .uri(value)
        case let value as ManagedObjectID: self = .objectID(value)
        case let value as ManagedObject: self = .objectID(value.objectID)
        case let value as [Any]: self = .collection(try value.map { try PredicateValue(argument: $0) })
        case let value as any Collection: self = .collection(try value.map { try PredicateValue(argument: $0) })
        default:
            throw FetchPredicateError(.badArgument, "a predicate cannot hold the argument \(String(describing: value!)) (\(type(of: value!)))")
        }
    }

    /// A number's value by the kind it holds: a Boolean, a floating-point or an integer value.
    init(_ number: NSNumber) {
        // A Boolean is a subclass of its own (`__NSCFBoolean`) whose type is a char.
        let isBoolean = Swift.type(of: number) != NSNumber.self
        switch String(cString: number.objCType) {
        case "c" where isBoolean, "B" where isBoolean: self = .bool(number.boolValue)
        case "f", "d": self = .double(number.doubleValue)
        case "Q" where number.uint64Value > UInt64(Int64.max): self = .double(number.doubleValue)
        default: self = .integer(number.int64Value)
        }
    }

    init(_ value: AttributeValue) {
        switch value {
        case .integer16(let v): self = .integer(Int64(v))
        case .integer32(let v): self = .integer(Int64(v))
        case .integer64(let v): self = .integer(v)
        case .decimal(let v): self = .decimal(v)
        case .double(let v): self = .double(v)
        case .float(let v): self = .double(Double(v))
        case .string(let v): self = .string(v)
        case .boolean(let v): self = .bool(v)
        case .date(let v): self = .date(v)
        case .binaryData(let v), .transformable(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .uri(let v): self = .uri(v)
        case .objectID(let v): self = .objectID(v)
        // External data whose file could not be read: its bytes if the file reads now; else it
        // compares as no value (a predicate cannot throw here; reading the value does).
        case .externalDataReference(let v): self = (try? v.data()).map { .data($0) } ?? .null
        }
    }
}

extension PredicateValue: CustomStringConvertible {
    /// The value as the normalised format string writes it.
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let v): v ? "YES" : "NO"
        case .integer(let v): "\(v)"
        case .double(let v): v == v.rounded() && abs(v) < 1e15 ? String(format: "%.1f", v) : "\(v)"
        case .decimal(let v): "\(v)"
        case .string(let v): Self.quote(v)
        case .date(let v): "CAST(\(v.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .data(let v): "<\(v.map { String(format: "%02x", $0) }.joined())>"
        case .uuid(let v): v.uuidString
        case .uri(let v): v.absoluteString
        case .objectID(let v): v.description
        case .collection(let values): "{" + values.map(\.description).joined(separator: ", ") + "}"
        }
    }

    /// A string literal with double quotes, escaped as the format string reads it.
    static func quote(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }
}
