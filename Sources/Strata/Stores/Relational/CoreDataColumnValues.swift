import Foundation

/// How Core Data's SQLite store encodes attribute values (`formats/coredata-sqlite-schema.md` §8),
/// both ways.
///
/// Reading is lenient where SQLite's column affinity lets a value arrive in another class than
/// the one Core Data writes (a lightweight migration copies values as they are: a Double 2.5 may
/// sit in an INTEGER column of what is now an Integer 32 attribute); it reads the value as an
/// app would, through `NSNumber`. A value no reading can make sense of is an error that names
/// the attribute, never a guess.
package enum CoreDataColumnValues {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Seconds between 1970 and 2001, the two epochs dates are counted from.
    static let referenceDate = Date(timeIntervalSinceReferenceDate: 0)

    /// The decimal a stored REAL stands for: the shortest decimal that reads back as the same
    /// double (`210367829.75`, where `Decimal(Double)` gives `210367829.7499999744`), as an app
    /// sees it through `NSNumber`.
    package static func decimal(_ double: Double) -> Decimal {
        guard double.isFinite, let exact = Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX")) else { return Decimal(double) }
        return exact
    }

    /// The REAL a decimal is stored as: the double nearest to it (parsed from its exact digits;
    /// `NSDecimalNumber.doubleValue` may miss by a unit in the last place).
    package static func double(_ decimal: Decimal) -> Double {
        Double(decimal.description) ?? NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// The stored form of `value` for `attribute`.
    package static func encode(_ value: AttributeValue?, for attribute: AttributeDescription) -> SQLValue {
        encode(value, allowsExternalStorage: attribute.allowsExternalBinaryDataStorage)
    }

    /// The stored form of `value` for an attribute that may (or may not) store its data outside
    /// the store: what saves call per value, without the attribute's whole description.
    package static func encode(_ value: AttributeValue?, allowsExternalStorage: Bool) -> SQLValue {
        guard let value else { return .null }
        switch value {
        case .integer16(let v): return .integer(Int64(v))
        case .integer32(let v): return .integer(Int64(v))
        case .integer64(let v): return .integer(v)
        case .boolean(let v): return .integer(v ? 1 : 0)
        // Core Data stores decimals as REAL (the column's DECIMAL type has numeric affinity).
        case .decimal(let v): return .real(double(v))
        case .double(let v): return .real(v)
        case .float(let v): return .real(Double(v))
        case .date(let v): return .real(v.timeIntervalSinceReferenceDate)
        case .string(let v): return .text(v)
        case .uri(let v): return .text(v.absoluteString)
        case .objectID(let v): return .text(v.uriRepresentation().absoluteString)
        case .uuid(let v): return .blob(withUnsafeBytes(of: v.uuid) { Data($0) })
        case .transformable(let v): return .blob(v)
        // Written back as it was read: 0x02, the file's name, NUL (§8).
        case .externalDataReference(let v): return .blob(Data([2]) + Data(v.name.utf8) + Data([0]))
        case .binaryData(let v):
            // With external storage allowed, an inline value carries a 0x01 prefix.
            return .blob(allowsExternalStorage ? Data([1]) + v : v)
        }
    }

    /// The attribute value a stored value holds.
    ///
    /// - Parameter externalData: For a Binary attribute with external storage: the value of the
    ///   file a reference (`0x02` + UUID) names, in the store's `_EXTERNAL_DATA` folder (its
    ///   bytes, or an ``ExternalDataReference`` when it cannot be read).
    package static func decode(
        _ stored: SQLValue, for attribute: AttributeDescription, externalData: (String) throws -> AttributeValue = { name in
            throw Failure(description: "the value is stored in the external file \(name), and no folder was given to read it from")
        }
    ) throws -> AttributeValue? {
        do {
            return try decode(stored, type: attribute.type, allowsExternalStorage: attribute.allowsExternalBinaryDataStorage, externalData: externalData)
        } catch let failure as Failure {
            throw Failure(description: "\(attribute.name): \(failure.description)")
        }
    }

    /// The attribute value a stored value holds, for an attribute of `type`: what reads call
    /// per value, without the attribute's whole description. A failure does not name the
    /// attribute; the caller does.
    package static func decode(
        _ stored: SQLValue, type: AttributeType, allowsExternalStorage: Bool, externalData: (String) throws -> AttributeValue
    ) throws -> AttributeValue? {
        func fail() -> Failure {
            Failure(description: "a stored \(stored.kind) does not fit a \(type.rawValue) attribute")
        }
        if case .null = stored { return nil }
        switch type {
        case .integer16, .integer32, .integer64:
            let number: Int64
            switch stored {
            case .integer(let v): number = v
            case .real(let v) where v.isFinite:
                guard let whole = Int64(exactly: v.rounded(.towardZero)) else { throw fail() }
                number = whole
            default: throw fail()
            }
            // An NSNumber read as a narrower type keeps its low bits; Strata refuses instead.
            guard let value = AttributeValue.integer64(number).converted(to: type) else { throw fail() }
            return value
        case .boolean:
            switch stored {
            case .integer(let v): return .boolean(v != 0)
            case .real(let v): return .boolean(v != 0)
            default: throw fail()
            }
        case .double, .float, .decimal, .date:
            let number: Double
            switch stored {
            case .integer(let v): number = Double(v)
            case .real(let v): number = v
            case .text(let v) where type == .decimal:
                guard let decimal = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) else { throw fail() }
                return .decimal(decimal)
            default: throw fail()
            }
            return switch type {
            case .double: .double(number)
            case .float: .float(Float(number))
            case .decimal: .decimal(decimal(number))
            default: .date(Date(timeIntervalSinceReferenceDate: number))
            }
        case .string:
            guard case .text(let v) = stored else { throw fail() }
            return .string(v)
        case .uri:
            guard case .text(let v) = stored, let url = URL(string: v) else { throw fail() }
            return .uri(url)
        case .objectID:
            guard case .text(let v) = stored, let url = URL(string: v), let id = ManagedObjectID(uri: url) else { throw fail() }
            return .objectID(id)
        case .uuid:
            guard case .blob(let v) = stored, v.count == 16 else { throw fail() }
            let b = [UInt8](v)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .transformable, .composite:
            guard case .blob(let v) = stored else { throw fail() }
            return .transformable(v)
        case .binaryData:
            guard case .blob(let v) = stored else { throw fail() }
            guard allowsExternalStorage else { return .binaryData(v) }
            switch v.first {
            case 1: return .binaryData(v.dropFirst())
            case 2:
                // 0x02, the file's UUID as 36 characters, NUL.
                guard v.count == 38, let name = String(data: v.dropFirst().prefix(36), encoding: .ascii), UUID(uuidString: name) != nil else {
                    throw fail()
                }
                return try externalData(name)
            default: throw fail()
            }
        case .undefined:
            return nil  // transient: never stored
        }
    }
}
