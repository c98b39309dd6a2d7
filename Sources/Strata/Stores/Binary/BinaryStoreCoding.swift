import Foundation
import StrataFileFormats

// How values are written in the binary store; docs/FileFormat.md describes the same, byte by byte.

extension AttributeType {
    /// The value tag of the type in the binary format (0 is "no value"). Fixed for ever:
    /// files written today must read the same tomorrow.
    var binaryTag: UInt8 {
        switch self {
        case .integer16: 1
        case .integer32: 2
        case .integer64: 3
        case .decimal: 4
        case .double: 5
        case .float: 6
        case .string: 7
        case .boolean: 8
        case .date: 9
        case .binaryData: 10
        case .uuid: 11
        case .uri: 12
        case .transformable: 13
        case .objectID: 14
        // Attribute types whose values are stored under another tag (a composite's as
        // transformable) or never stored (undefined: transient only): tags for the schema.
        case .undefined: 15
        case .composite: 16
        }
    }

    init?(binaryTag: UInt8) {
        guard let type = Self.allCases.first(where: { $0.binaryTag == binaryTag }) else { return nil }
        self = type
    }
}

extension ByteWriter {
    /// - Throws: The ``StoreError`` of external data whose file cannot be read (a SQLite store's
    ///   value, copied here): the binary store keeps bytes, and has none to keep.
    mutating func attributeValue(_ value: AttributeValue?) throws {
        guard let value else {
            byte(0)
            return
        }
        byte(value.type.binaryTag)
        switch value {
        case .integer16(let v): signed(Int64(v))
        case .integer32(let v): signed(Int64(v))
        case .integer64(let v): signed(v)
        case .decimal(let v): string("\(v)")
        case .double(let v): double(v)
        case .float(let v): fixed(v.bitPattern)
        case .string(let v): string(v)
        case .boolean(let v): byte(v ? 1 : 0)
        case .date(let v): double(v.timeIntervalSinceReferenceDate)
        case .binaryData(let v), .transformable(let v): data(v)
        case .uuid(let v): withUnsafeBytes(of: v.uuid) { raw($0) }
        case .uri(let v): string(v.absoluteString)
        case .objectID(let v): string(v.uriRepresentation().absoluteString)
        case .externalDataReference(let v): data(try v.data())
        }
    }

    /// The value at `position` of a column, as ``attributeValue(_:)`` writes it: a string's
    /// bytes copied from the column, without a `String` made.
    mutating func attributeValue(_ column: AttributeColumn, at position: Int) throws {
        let copied: Void? = column.withUTF8(at: position) { utf8 in
            byte(AttributeType.string.binaryTag)
            varint(utf8.count)
            raw(utf8)
        }
        if copied == nil { try attributeValue(column[position]) }
    }

    mutating func metadataValue(_ value: MetadataValue) {
        switch value {
        case .string(let v): byte(1); string(v)
        case .integer(let v): byte(2); signed(v)
        case .double(let v): byte(3); double(v)
        case .bool(let v): byte(4); byte(v ? 1 : 0)
        case .data(let v): byte(5); data(v)
        case .date(let v): byte(6); double(v.timeIntervalSinceReferenceDate)
        case .array(let items):
            byte(7)
            varint(items.count)
            for item in items { metadataValue(item) }
        case .dictionary(let entries):
            byte(8)
            varint(entries.count)
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                string(key)
                metadataValue(item)
            }
        }
    }
}

extension ByteReader {
    mutating func attributeValue() throws -> AttributeValue? {
        let tag = try byte()
        guard tag != 0 else { return nil }
        guard let type = AttributeType(binaryTag: tag) else { throw fail("unknown value tag \(tag)") }
        switch type {
        case .undefined, .composite: throw fail("unknown value tag \(tag)")  // schema tags only
        case .integer16:
            guard let v = Int16(exactly: try signed()) else { throw fail("an Integer 16 value is out of range") }
            return .integer16(v)
        case .integer32:
            guard let v = Int32(exactly: try signed()) else { throw fail("an Integer 32 value is out of range") }
            return .integer32(v)
        case .integer64: return .integer64(try signed())
        case .decimal:
            let text = try string()
            guard let v = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw fail("a decimal value is malformed") }
            return .decimal(v)
        case .double: return .double(try double())
        case .float: return .float(Float(bitPattern: try fixed(UInt32.self)))
        case .string: return .string(try string())
        case .boolean:
            switch try byte() {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            default: throw fail("a boolean value is neither 0 nor 1")
            }
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try double()))
        case .binaryData: return .binaryData(try data())
        case .transformable: return .transformable(try data())
        case .uuid:
            let b = Array(try rawBytes(16))
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .uri:
            guard let url = URL(string: try string()) else { throw fail("a URI value is malformed") }
            return .uri(url)
        case .objectID:
            guard let url = URL(string: try string()), let id = ManagedObjectID(uri: url) else {
                throw fail("an object ID value is malformed")
            }
            return .objectID(id)
        }
    }

    /// A metadata value, nested at most `depth` levels (a damaged file cannot recurse without end).
    mutating func metadataValue(depth: Int = 16) throws -> MetadataValue {
        guard depth > 0 else { throw fail("metadata is nested too deeply") }
        switch try byte() {
        case 1: return .string(try string())
        case 2: return .integer(try signed())
        case 3: return .double(try double())
        case 4:
            switch try byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            default: throw fail("a boolean value is neither 0 nor 1")
            }
        case 5: return .data(try data())
        case 6: return .date(Date(timeIntervalSinceReferenceDate: try double()))
        case 7:
            let count = try count()
            var items: [MetadataValue] = []
            for _ in 0..<count { items.append(try metadataValue(depth: depth - 1)) }
            return .array(items)
        case 8:
            let count = try count(minimumSize: 2)
            var entries: [String: MetadataValue] = [:]
            for _ in 0..<count {
                let key = try string()
                entries[key] = try metadataValue(depth: depth - 1)
            }
            return .dictionary(entries)
        case let tag:
            throw fail("unknown metadata tag \(tag)")
        }
    }
}
