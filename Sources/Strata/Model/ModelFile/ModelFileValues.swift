import Foundation

/// Parses the values a model file writes as strings: defaults and bounds, in the forms Xcode
/// writes them (`YES`/`NO` for booleans, seconds since 2001 for dates).
struct ModelFileValues {
    let file: URL
    let node: XMLNode
    let attribute: String
    let type: AttributeType

    func defaultValue() throws -> AttributeValue? {
        if type == .date, let interval = node["defaultDateTimeInterval"] {
            return try date(interval, "defaultDateTimeInterval")
        }
        guard let text = node["defaultValueString"] else { return nil }
        return try value(text, "defaultValueString")
    }

    func bound(_ key: String, dateKey: String) throws -> AttributeValue? {
        if type == .date {
            return try node[dateKey].map { try date($0, dateKey) }
        }
        return try node[key].map { try value($0, key) }
    }

    func length(_ key: String) throws -> Int? {
        guard let text = node[key] else { return nil }
        guard let length = Int(text), length >= 0 else { throw invalid(text, key) }
        return length
    }

    private func value(_ text: String, _ key: String) throws -> AttributeValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let converted: AttributeValue? = switch type {
        case .integer16, .integer32, .integer64:
            // Xcode lets a YES/NO default stand on an integer attribute; Core Data reads it as 1/0.
            (Int64(trimmed) ?? Self.flag(trimmed).map { $0 ? 1 : 0 }).flatMap { AttributeValue.integer64($0).converted(to: type) }
        case .decimal: Decimal(string: trimmed).map(AttributeValue.decimal)
        case .double: Double(trimmed).map(AttributeValue.double)
        case .float: Float(trimmed).map(AttributeValue.float)
        case .boolean: Self.flag(trimmed).map(AttributeValue.boolean)
        case .string: .string(text)
        case .uuid: UUID(uuidString: trimmed).map(AttributeValue.uuid)
        case .uri: URL(string: trimmed).map(AttributeValue.uri)
        case .date: Double(trimmed).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .binaryData, .transformable, .objectID: nil
        }
        guard let converted else { throw invalid(text, key) }
        return converted
    }

    private func date(_ text: String, _ key: String) throws -> AttributeValue {
        guard let seconds = Double(text) else { throw invalid(text, key) }
        return .date(Date(timeIntervalSinceReferenceDate: seconds))
    }

    private static func flag(_ text: String) -> Bool? {
        switch text.uppercased() {
        case "YES", "TRUE", "1": true
        case "NO", "FALSE", "0": false
        default: nil
        }
    }

    private func invalid(_ text: String, _ key: String) -> ModelFileError {
        ModelFileError(
            .invalidValue, file: file, line: node.line,
            "attribute '\(attribute)' has \(key)=\"\(text)\", which is not a \(type.rawValue) value")
    }
}
