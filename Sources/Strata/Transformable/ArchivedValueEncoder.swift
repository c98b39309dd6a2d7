import Foundation

extension ArchivedValue {
    /// The archived form of a `Codable` value: structures and dictionaries become dictionaries
    /// (keyed by their coding keys), arrays arrays, sets sets; `Date`, `Data`, `URL`, `UUID` and
    /// `Decimal` their Foundation classes; numbers and Booleans numbers; `nil` null.
    ///
    /// - Throws: ``TransformableValueError`` `.notArchivable` for an integer beyond 64 bits.
    public init(encoding value: some Encodable) throws {
        self = try ArchivedValueEncoder.encode(value, codingPath: [])
    }
}

/// Lets a `Set` be archived as an `NSSet`, where `Encodable` alone would give an array.
protocol ArchivableSet {
    var archivableElements: [any Encodable] { get }
}

extension Set: ArchivableSet where Element: Encodable {
    var archivableElements: [any Encodable] { Array(self) }
}

/// The `Encoder` behind ``ArchivedValue/init(encoding:)``: each container writes into a box that
/// becomes its value when encoding ends.
final class ArchivedValueEncoder: Encoder {
    /// What a container is building.
    final class Box {
        enum Content {
            case empty, value(ArchivedValue), keyed([String: Box]), unkeyed([Box])
        }
        var content = Content.empty

        var value: ArchivedValue {
            switch content {
            case .empty: .dictionary([:])
            case .value(let value): value
            case .keyed(let entries): .dictionary(Dictionary(uniqueKeysWithValues: entries.map { (.string($0.key), $0.value.value) }))
            case .unkeyed(let items): .array(items.map(\.value))
            }
        }
    }

    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let box: Box

    init(codingPath: [any CodingKey], box: Box) {
        self.codingPath = codingPath
        self.box = box
    }

    static func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws -> ArchivedValue {
        if let special = try special(value) { return special }
        let encoder = ArchivedValueEncoder(codingPath: codingPath, box: Box())
        try value.encode(to: encoder)
        return encoder.box.value
    }

    /// The types Foundation archives as classes of their own rather than as what they encode.
    private static func special(_ value: any Encodable) throws -> ArchivedValue? {
        switch value {
        case let v as Date: .date(v)
        case let v as Data: .data(v)
        case let v as URL: .url(v)
        case let v as UUID: .uuid(v)
        case let v as Decimal: .decimal(v)
        case let v as any ArchivableSet: .set(Set(try v.archivableElements.map { try encode($0, codingPath: []) }))
        default: nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = box.content {} else { box.content = .keyed([:]) }
        return KeyedEncodingContainer(Keyed<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = box.content {} else { box.content = .unkeyed([]) }
        return Unkeyed(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

    /// A box holding `value` encoded at `path`.
    static func box(_ value: some Encodable, at path: [any CodingKey]) throws -> Box {
        let box = Box()
        if let special = try special(value) {
            box.content = .value(special)
        } else {
            try value.encode(to: ArchivedValueEncoder(codingPath: path, box: box))
        }
        return box
    }

    static func integer<T: BinaryInteger>(_ value: T, at path: [any CodingKey]) throws -> ArchivedValue {
        guard let fitted = Int64(exactly: value) else {
            throw TransformableValueError(
                .notArchivable, "\(value) at \(path.map(\.stringValue).joined(separator: ".")) does not fit an archived number")
        }
        return .integer(fitted)
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ArchivedValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func set(_ value: ArchivedValue, _ key: Key) {
            let box = Box()
            box.content = .value(value)
            set(box, key)
        }

        private func set(_ box: Box, _ key: Key) {
            guard case .keyed(var entries) = encoder.box.content else { return }
            entries[key.stringValue] = box
            encoder.box.content = .keyed(entries)
        }

        func encodeNil(forKey key: Key) { set(.null, key) }
        func encode(_ value: Bool, forKey key: Key) { set(.boolean(value), key) }
        func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
        func encode(_ value: Double, forKey key: Key) { set(.double(value), key) }
        func encode(_ value: Float, forKey key: Key) { set(.double(Double(value)), key) }
        func encode(_ value: Int, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: Int8, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: Int16, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: Int32, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: Int64, forKey key: Key) { set(.integer(value), key) }
        func encode(_ value: UInt, forKey key: Key) throws { set(try integer(value, at: codingPath + [key]), key) }
        func encode(_ value: UInt8, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: UInt16, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: UInt32, forKey key: Key) { set(.integer(Int64(value)), key) }
        func encode(_ value: UInt64, forKey key: Key) throws { set(try integer(value, at: codingPath + [key]), key) }
        func encode<T: Encodable>(_ value: T, forKey key: Key) throws { set(try box(value, at: codingPath + [key]), key) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = Box()
            set(nested, key)
            return ArchivedValueEncoder(codingPath: codingPath + [key], box: nested).container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = Box()
            set(nested, key)
            return ArchivedValueEncoder(codingPath: codingPath + [key], box: nested).unkeyedContainer()
        }

        func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

        func superEncoder(forKey key: Key) -> any Encoder {
            let nested = Box()
            set(nested, key)
            return ArchivedValueEncoder(codingPath: codingPath + [key], box: nested)
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: ArchivedValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int {
            if case .unkeyed(let items) = encoder.box.content { items.count } else { 0 }
        }

        private func append(_ value: ArchivedValue) {
            let box = Box()
            box.content = .value(value)
            append(box)
        }

        private func append(_ box: Box) {
            guard case .unkeyed(var items) = encoder.box.content else { return }
            items.append(box)
            encoder.box.content = .unkeyed(items)
        }

        private var path: [any CodingKey] { codingPath + [IndexKey(count)] }

        func encodeNil() { append(.null) }
        func encode(_ value: Bool) { append(.boolean(value)) }
        func encode(_ value: String) { append(.string(value)) }
        func encode(_ value: Double) { append(.double(value)) }
        func encode(_ value: Float) { append(.double(Double(value))) }
        func encode(_ value: Int) { append(.integer(Int64(value))) }
        func encode(_ value: Int8) { append(.integer(Int64(value))) }
        func encode(_ value: Int16) { append(.integer(Int64(value))) }
        func encode(_ value: Int32) { append(.integer(Int64(value))) }
        func encode(_ value: Int64) { append(.integer(value)) }
        func encode(_ value: UInt) throws { append(try integer(value, at: path)) }
        func encode(_ value: UInt8) { append(.integer(Int64(value))) }
        func encode(_ value: UInt16) { append(.integer(Int64(value))) }
        func encode(_ value: UInt32) { append(.integer(Int64(value))) }
        func encode(_ value: UInt64) throws { append(try integer(value, at: path)) }
        func encode<T: Encodable>(_ value: T) throws { append(try box(value, at: path)) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = Box()
            let path = self.path
            append(nested)
            return ArchivedValueEncoder(codingPath: path, box: nested).container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = Box()
            let path = self.path
            append(nested)
            return ArchivedValueEncoder(codingPath: path, box: nested).unkeyedContainer()
        }

        func superEncoder() -> any Encoder {
            let nested = Box()
            let path = self.path
            append(nested)
            return ArchivedValueEncoder(codingPath: path, box: nested)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let encoder: ArchivedValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func set(_ value: ArchivedValue) { encoder.box.content = .value(value) }

        func encodeNil() { set(.null) }
        func encode(_ value: Bool) { set(.boolean(value)) }
        func encode(_ value: String) { set(.string(value)) }
        func encode(_ value: Double) { set(.double(value)) }
        func encode(_ value: Float) { set(.double(Double(value))) }
        func encode(_ value: Int) { set(.integer(Int64(value))) }
        func encode(_ value: Int8) { set(.integer(Int64(value))) }
        func encode(_ value: Int16) { set(.integer(Int64(value))) }
        func encode(_ value: Int32) { set(.integer(Int64(value))) }
        func encode(_ value: Int64) { set(.integer(value)) }
        func encode(_ value: UInt) throws { set(try integer(value, at: codingPath)) }
        func encode(_ value: UInt8) { set(.integer(Int64(value))) }
        func encode(_ value: UInt16) { set(.integer(Int64(value))) }
        func encode(_ value: UInt32) { set(.integer(Int64(value))) }
        func encode(_ value: UInt64) throws { set(try integer(value, at: codingPath)) }
        func encode<T: Encodable>(_ value: T) throws { encoder.box.content = try box(value, at: codingPath).content }
    }
}

/// An array position as a coding key, for coding paths.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }

    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { intValue = Int(stringValue) }
    init?(intValue: Int) { self.intValue = intValue }
}
