import Foundation

extension ArchivedValue {
    /// The value as a `Decodable` Swift type, the inverse of ``init(encoding:)``: a dictionary
    /// decodes a structure by its coding keys, an array, ordered set or set a collection, a number
    /// any numeric type it fits (as `NSNumber` converts), a string a `URL` or `UUID` too.
    ///
    /// - Throws: ``TransformableValueError`` `.wrongType`, saying where the value does not fit.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ArchivedValueDecoder.decode(type, from: self, codingPath: [])
    }
}

/// The `Decoder` behind ``ArchivedValue/decode(_:)``.
struct ArchivedValueDecoder: Decoder {
    let value: ArchivedValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<T: Decodable>(_ type: T.Type, from value: ArchivedValue, codingPath: [any CodingKey]) throws -> T {
        if let special = try special(type, from: value, codingPath: codingPath) { return special }
        return try T(from: ArchivedValueDecoder(value: value, codingPath: codingPath))
    }

    /// The types archived as Foundation classes of their own.
    private static func special<T>(_ type: T.Type, from value: ArchivedValue, codingPath: [any CodingKey]) throws -> T? {
        let result: Any? =
            switch (type, value) {
            case (is Date.Type, .date(let v)): v
            case (is Data.Type, .data(let v)): v
            case (is URL.Type, .url(let v)): v
            case (is URL.Type, .string(let v)): URL(string: v)
            case (is UUID.Type, .uuid(let v)): v
            case (is UUID.Type, .string(let v)): UUID(uuidString: v)
            case (is Decimal.Type, .decimal(let v)): v
            case (is Decimal.Type, .integer(let v)): Decimal(v)
            case (is Decimal.Type, .double(let v)): CoreDataColumnValues.decimal(v)
            default: nil
            }
        if let result { return result as? T }
        if [Date.self, Data.self, URL.self, UUID.self, Decimal.self].contains(where: { $0 == type }) {
            throw mismatch(type, value, codingPath)
        }
        return nil
    }

    static func mismatch(_ type: Any.Type, _ value: ArchivedValue, _ codingPath: [any CodingKey]) -> TransformableValueError {
        let place = codingPath.isEmpty ? "" : " at \(codingPath.map(\.stringValue).joined(separator: "."))"
        return TransformableValueError(.wrongType, "the archived value\(place) (\(value.kindName)) is not a \(type)")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let entries) = value else { throw Self.mismatch([String: Any].self, value, codingPath) }
        var byName: [String: ArchivedValue] = [:]
        for (key, item) in entries {
            switch key {
            case .string(let name): byName[name] = item
            case .integer(let number): byName[String(number)] = item
            default: continue
            }
        }
        return KeyedDecodingContainer(Keyed<Key>(entries: byName, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let items), .orderedSet(let items): return Unkeyed(items: items, codingPath: codingPath)
        case .set(let items): return Unkeyed(items: items.sorted(by: ArchivedValue.fixedOrder), codingPath: codingPath)
        default: throw Self.mismatch([Any].self, value, codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }

    /// A scalar of `T` from an archived value, as `NSNumber` converts: any number that fits.
    static func scalar<T>(_ type: T.Type, _ value: ArchivedValue, _ codingPath: [any CodingKey]) throws -> T {
        let result: Any? =
            switch value {
            case .string(let v) where type == String.self: v
            case .boolean(let v) where type == Bool.self: v
            case .integer(let v) where type == Bool.self && (v == 0 || v == 1): v == 1
            case .integer(let v): integer(v, as: type)
            case .boolean(let v) where type != String.self: integer(v ? 1 : 0, as: type)
            case .double(let v) where type == Double.self: v
            case .double(let v) where type == Float.self: Float(v)
            case .double(let v): v.rounded() == v ? Int64(exactly: v).flatMap { integer($0, as: type) } : nil
            case .decimal(let v) where type == Double.self: CoreDataColumnValues.double(v)
            default: nil
            }
        guard let typed = result as? T else { throw mismatch(type, value, codingPath) }
        return typed
    }

    private static func integer(_ value: Int64, as type: Any.Type) -> Any? {
        switch type {
        case is Int.Type: Int(exactly: value)
        case is Int8.Type: Int8(exactly: value)
        case is Int16.Type: Int16(exactly: value)
        case is Int32.Type: Int32(exactly: value)
        case is Int64.Type: value
        case is UInt.Type: UInt(exactly: value)
        case is UInt8.Type: UInt8(exactly: value)
        case is UInt16.Type: UInt16(exactly: value)
        case is UInt32.Type: UInt32(exactly: value)
        case is UInt64.Type: UInt64(exactly: value)
        case is Double.Type: Double(exactly: value)
        case is Float.Type: Float(exactly: value)
        default: nil
        }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let entries: [String: ArchivedValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

        private func value(_ key: Key) throws -> ArchivedValue {
            guard let value = entries[key.stringValue] else {
                throw TransformableValueError(.wrongType, "the archived dictionary has no \((codingPath + [key]).map(\.stringValue).joined(separator: "."))")
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { entries[key.stringValue].map { $0 == .null } ?? true }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, value(key), codingPath + [key]) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ArchivedValueDecoder.decode(type, from: value(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try ArchivedValueDecoder(value: value(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ArchivedValueDecoder(value: value(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { try superDecoder(forKey: Key(stringValue: "super")!) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            ArchivedValueDecoder(value: entries[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [ArchivedValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        init(items: [ArchivedValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        private mutating func next() throws -> (ArchivedValue, [any CodingKey]) {
            guard !isAtEnd else {
                throw TransformableValueError(.wrongType, "the archived collection has \(items.count) elements, fewer than asked for")
            }
            defer { currentIndex += 1 }
            return (items[currentIndex], codingPath + [IndexKey(currentIndex)])
        }

        private mutating func scalar<T>(_ type: T.Type) throws -> T {
            let (value, path) = try next()
            return try ArchivedValueDecoder.scalar(type, value, path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
        mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next()
            return try ArchivedValueDecoder.decode(type, from: value, codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (value, path) = try next()
            return try ArchivedValueDecoder(value: value, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next()
            return try ArchivedValueDecoder(value: value, codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, path) = try next()
            return ArchivedValueDecoder(value: value, codingPath: path)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: ArchivedValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try scalar(type, value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try scalar(type, value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try scalar(type, value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try scalar(type, value, codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try scalar(type, value, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type, value, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type, value, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type, value, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type, value, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try scalar(type, value, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type, value, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type, value, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type, value, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type, value, codingPath) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try ArchivedValueDecoder.decode(type, from: value, codingPath: codingPath) }
    }
}

extension ArchivedValue {
    /// The Foundation class a value archives as, for messages.
    var kindName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .double: "a floating-point number"
        case .boolean: "a Boolean"
        case .decimal: "a decimal number"
        case .data: "data"
        case .date: "a date"
        case .url: "a URL"
        case .uuid: "a UUID"
        case .null: "null"
        case .array: "an array"
        case .orderedSet: "an ordered set"
        case .set: "a set"
        case .dictionary: "a dictionary"
        }
    }
}
