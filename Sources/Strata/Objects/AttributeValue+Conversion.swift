import Foundation

extension AttributeValue {
    /// This value converted, without loss, to `type`; `nil` when it cannot be.
    ///
    /// Integers convert to any integer type they fit in, and to decimals; integers and floats
    /// convert to floating-point types when the result is exact. Nothing else converts: a
    /// string is never parsed into a number, nor a number formatted into a string.
    public func converted(to type: AttributeType) -> AttributeValue? {
        if self.type == type || type.valueType.map({ $0 == self.type }) ?? true { return self }
        if let integer = integerValue {
            switch type {
            case .integer16: return Int16(exactly: integer).map(AttributeValue.integer16)
            case .integer32: return Int32(exactly: integer).map(AttributeValue.integer32)
            case .integer64: return .integer64(integer)
            case .decimal: return .decimal(Decimal(integer))
            case .double: return Double(exactly: integer).map(AttributeValue.double)
            case .float: return Float(exactly: integer).map(AttributeValue.float)
            default: return nil
            }
        }
        switch (self, type) {
        case (.float(let v), .double): return .double(Double(v))
        case (.double(let v), .float):
            guard let narrowed = Float(exactly: v) else { return nil }
            return .float(narrowed)
        default: return nil
        }
    }

    /// Makes an attribute value of `type` from a Swift value, as `setValue(_:forKey:)` receives
    /// it; `nil` when the value is not of a type the attribute can hold.
    static func make(from value: Any, as type: AttributeType) -> AttributeValue? {
        // The common case first: a Swift value of the attribute's own kind. (A cast of `Any` to
        // an enum costs more than one to a concrete type: a third of a batch insert's
        // conversions went there.) No such value is an `AttributeValue`, so the order changes
        // no answer.
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            if let number = numeric(from: value) { return number.converted(to: type) }
        case .string:
            if let v = value as? String { return .string(v) }
        case .date:
            if let v = value as? Date { return .date(v) }
        case .boolean:
            if let v = value as? Bool { return .boolean(v) }
        default:
            break
        }
        if let value = value as? AttributeValue { return value.converted(to: type) }
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            return numeric(from: value)?.converted(to: type)
        case .string:
            if let v = value as? String { return .string(v) }
            if let v = value as? Substring { return .string(String(v)) }
        case .boolean:
            if let v = value as? Bool { return .boolean(v) }
        case .date:
            if let v = value as? Date { return .date(v) }
        case .binaryData:
            if let v = value as? Data { return .binaryData(v) }
            if let v = value as? [UInt8] { return .binaryData(Data(v)) }
        case .uuid:
            if let v = value as? UUID { return .uuid(v) }
        case .uri:
            if let v = value as? URL { return .uri(v) }
        case .undefined:
            // Whatever kind of value it is, in the type that matches its Swift type.
            if let v = value as? Bool { return .boolean(v) }
            if let number = numeric(from: value) { return number }
            for type: AttributeType in [.string, .date, .binaryData, .uuid, .uri, .objectID] {
                if let made = make(from: value, as: type) { return made }
            }
            return make(from: value, as: .transformable)
        case .composite:
            if let v = value as? Data { return .transformable(v) }
            if JSONSerialization.isValidJSONObject(value),
                let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
            {
                return .transformable(data)
            }
        case .transformable:
            // Data is the stored bytes; anything else is archived as Core Data's default
            // transformer does (an attribute that names another transformer goes through
            // `ManagedObject.setValue(_:forKey:)`).
            if let v = value as? Data { return .transformable(v) }
            if let data = try? TransformableCoding.keyedArchive.storedData(for: value) { return .transformable(data) }
        case .objectID:
            if let v = value as? ManagedObjectID { return .objectID(v) }
        }
        return nil
    }

    private static func numeric(from value: Any) -> AttributeValue? {
        switch value {
        case let v as Int: .integer64(Int64(v))
        case let v as Int8: .integer16(Int16(v))
        case let v as Int16: .integer16(v)
        case let v as Int32: .integer32(v)
        case let v as Int64: .integer64(v)
        case let v as UInt8: .integer16(Int16(v))
        case let v as UInt16: .integer32(Int32(v))
        case let v as UInt32: .integer64(Int64(v))
        case let v as UInt: Int64(exactly: v).map(AttributeValue.integer64)
        case let v as UInt64: Int64(exactly: v).map(AttributeValue.integer64)
        case let v as Double: .double(v)
        case let v as Float: .float(v)
        case let v as Decimal: .decimal(v)
        default: nil
        }
    }
}

extension JSONEncoder {
    /// The encoder for transformable values stored as JSON: sorted keys, so that equal values
    /// encode equally; dates as their seconds since 2001, exactly (ISO 8601 dropped fractions).
    static var transformable: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .deferredToDate
        return encoder
    }
}

extension JSONDecoder {
    /// The decoder matching ``JSONEncoder/transformable``; it reads the ISO 8601 dates Strata
    /// wrote before, too.
    static var transformable: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSinceReferenceDate: seconds) }
            let text = try container.decode(String.self)
            for style in [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)] {
                if let date = try? style.parse(text) { return date }
            }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an ISO 8601 date")
        }
        return decoder
    }
}
