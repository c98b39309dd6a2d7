import Foundation

/// A value as Foundation's keyed archiver keeps it: the objects Core Data's default value
/// transformer (`NSSecureUnarchiveFromData`) archives for a transformable attribute. Strings,
/// numbers, Booleans, decimals, data, dates, URLs, UUIDs and null, and arrays, ordered sets, sets
/// and dictionaries of them, nested.
///
/// ``init(keyedArchive:)`` reads an `NSKeyedArchiver` archive of such objects, whatever order its
/// objects are in; ``keyedArchive()`` writes one as Foundation lays it out, which an app's Core
/// Data unarchives. An archive of any other class (`UIColor`, an app's own `NSCoding` class) is
/// not an `ArchivedValue`: reading it throws a ``TransformableValueError`` that names the class.
///
/// Codable Swift values convert both ways (``init(encoding:)``, ``decode(_:)``): arrays to
/// arrays, structures to dictionaries by their coding keys, `URL`, `UUID`, `Date`, `Data` and
/// `Decimal` to their Foundation classes.
public indirect enum ArchivedValue: Sendable, Hashable {
    /// `NSString`.
    case string(String)
    /// `NSNumber` holding an integer.
    case integer(Int64)
    /// `NSNumber` holding a floating-point number.
    case double(Double)
    /// `NSNumber` holding a Boolean.
    case boolean(Bool)
    /// `NSDecimalNumber`.
    case decimal(Decimal)
    /// `NSData`.
    case data(Data)
    /// `NSDate`.
    case date(Date)
    /// `NSURL`.
    case url(URL)
    /// `NSUUID`.
    case uuid(UUID)
    /// `NSNull`.
    case null
    /// `NSArray`.
    case array([ArchivedValue])
    /// `NSOrderedSet`.
    case orderedSet([ArchivedValue])
    /// `NSSet`.
    case set(Set<ArchivedValue>)
    /// `NSDictionary`.
    case dictionary([ArchivedValue: ArchivedValue])

    /// The value as Swift's Foundation values, as `value(forKey:)` returns a transformable
    /// attribute's: `String`, `Int` (an `Int64` that does not fit one), `Double`, `Bool`,
    /// `Decimal`, `Data`, `Date`, `URL`, `UUID`, `NSNull`, `[Any]` for arrays and ordered sets,
    /// `Set<AnyHashable>`, and `[String: Any]` (`[AnyHashable: Any]` when a key is not a string).
    public var anyValue: Any {
        switch self {
        case .string, .integer, .double, .boolean, .decimal, .data, .date, .url, .uuid, .null: hashableValue.base
        case .array(let items), .orderedSet(let items): items.map(\.anyValue)
        case .set(let items): Set(items.map(\.hashableValue))
        case .dictionary(let entries):
            if entries.keys.allSatisfy({ if case .string = $0 { true } else { false } }) {
                Dictionary(uniqueKeysWithValues: entries.map { key, value in (key.stringValue ?? "", value.anyValue) })
            } else {
                Dictionary(uniqueKeysWithValues: entries.map { key, value in (key.hashableValue, value.anyValue) }) as [AnyHashable: Any]
            }
        }
    }

    private var stringValue: String? {
        if case .string(let v) = self { v } else { nil }
    }

    private var hashableValue: AnyHashable {
        switch self {
        case .string(let v): v
        case .integer(let v): Int(exactly: v).map(AnyHashable.init) ?? AnyHashable(v)
        case .double(let v): v
        case .boolean(let v): v
        case .decimal(let v): v
        case .data(let v): v
        case .date(let v): v
        case .url(let v): v
        case .uuid(let v): v
        case .null: NSNull()
        case .array, .orderedSet, .set, .dictionary: self
        }
    }

    /// The archived form of a Swift value of Foundation's kinds (those ``anyValue`` gives, any
    /// integer width, `Float`, `Substring`, `NSNumber`, optionals as null, collections of them),
    /// or of an ``ArchivedValue``.
    ///
    /// - Throws: ``TransformableValueError`` with code `.notArchivable` for anything else.
    public init(any value: Any) throws {
        switch value {
        case let v as ArchivedValue: self = v
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Bool: self = .boolean(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int64: self = .integer(v)
        case let v as UInt8: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt32: self = .integer(Int64(v))
        case let v as UInt: self = try .integer(Self.fitting(v))
        case let v as UInt64: self = try .integer(Self.fitting(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as URL: self = .url(v)
        case let v as UUID: self = .uuid(v)
        case is NSNull: self = .null
        case let v as NSNumber: self = Self.number(v)
        case let v as [Any]: self = .array(try v.map(ArchivedValue.init(any:)))
        case let v as Set<AnyHashable>: self = .set(Set(try v.map { try ArchivedValue(any: $0.base) }))
        case let v as [String: Any]:
            self = .dictionary(Dictionary(try v.map { (.string($0.key), try ArchivedValue(any: $0.value)) }, uniquingKeysWith: { a, _ in a }))
        case let v as [AnyHashable: Any]:
            self = .dictionary(Dictionary(try v.map { (try ArchivedValue(any: $0.key.base), try ArchivedValue(any: $0.value)) }, uniquingKeysWith: { a, _ in a }))
        default:
            if case Optional<Any>.none = value as Any? { self = .null; return }
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    self = .null
                    return
                }
                self = try ArchivedValue(any: wrapped)
                return
            }
            throw TransformableValueError(
                .notArchivable, "a \(type(of: value)) value is none of the kinds Foundation's keyed archiver keeps as property-list objects")
        }
    }

    private static func fitting<T: BinaryInteger>(_ value: T) throws -> Int64 {
        guard let fitted = Int64(exactly: value) else {
            throw TransformableValueError(.notArchivable, "\(value) does not fit the 64-bit integers an archived number holds")
        }
        return fitted
    }

    private static func number(_ number: NSNumber) -> ArchivedValue {
        let double = number.doubleValue
        if double.rounded() == double, let integer = Int64(exactly: double), number.int64Value == integer { return .integer(integer) }
        return .double(double)
    }
}
