import Foundation
import StrataFileFormats

/// Parses the values a model file writes as strings: defaults and bounds, in the forms Xcode
/// writes them (`YES`/`NO` for booleans, seconds since 2001 for dates).
///
/// Xcode's editor lets through strings that do not fit the attribute's type, and Core Data
/// coerces them through `NSNumber`: a decimal on an integer attribute (`"0.0"` on Integer 64,
/// a common leftover of a type change) is truncated toward zero, a number out of an integer
/// type's range is clamped to it, `YES`/`NO` on a number is 1/0 and a number on a Boolean is
/// true unless 0, an empty numeric default is no default, and a negative length bound is no
/// bound. Each coercion is recorded in the reader's notes, which `strata models show` prints.
/// A string that is no value of the type at all (`"abc"` on a number, a malformed UUID) is
/// still an error.
struct ModelFileValues {
    let file: URL
    let node: XMLNode
    let entity: String
    let attribute: String
    let type: AttributeType
    let notes: ModelFileReader.NoteList

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
        return try node[key].flatMap { try value($0, key) }
    }

    func length(_ key: String) throws -> Int? {
        guard let text = node[key] else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let length = Int(trimmed), length >= 0 { return length }
        if trimmed.isEmpty {
            note(key, text, "is no bound")
            return nil
        }
        guard let number = Double(trimmed), number.isFinite else { throw invalid(text, key, "a length") }
        guard number >= 0 else {
            note(key, text, "is no bound (a length cannot be negative)")
            return nil
        }
        let length = Int(min(number, Double(Int32.max)))
        note(key, text, "is taken as \(length)")
        return length
    }

    private func value(_ text: String, _ key: String) throws -> AttributeValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty, ![.string, .binaryData, .transformable, .objectID, .undefined, .composite].contains(type) {
            note(key, text, "is no value")
            return nil
        }
        let converted: AttributeValue? = switch type {
        case .integer16, .integer32, .integer64: integer(trimmed, text, key)
        case .decimal:
            Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")).map(AttributeValue.decimal)
                ?? flagAsNumber(trimmed, text, key).map { .decimal(Decimal($0)) }
        case .double: Double(trimmed).map(AttributeValue.double) ?? flagAsNumber(trimmed, text, key).map { .double(Double($0)) }
        case .float: Float(trimmed).map(AttributeValue.float) ?? flagAsNumber(trimmed, text, key).map { .float(Float($0)) }
        case .boolean: boolean(trimmed, text, key)
        case .string: .string(text)
        case .uuid: UUID(uuidString: trimmed).map(AttributeValue.uuid)
        case .uri: URL(string: trimmed).map(AttributeValue.uri)
        case .date: Double(trimmed).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .binaryData, .transformable, .objectID, .undefined, .composite: nil
        }
        guard let converted else { throw invalid(text, key, "a \(type.rawValue) value") }
        return converted
    }

    /// An integer as `NSNumber` reads one: whole, else a decimal truncated, else YES/NO as 1/0;
    /// clamped to the type's range.
    private func integer(_ trimmed: String, _ text: String, _ key: String) -> AttributeValue? {
        var number: Int64
        if let whole = Int64(trimmed) {
            number = whole
        } else if let real = Double(trimmed), real.isFinite {
            number = real >= Double(Int64.max) ? .max : real <= Double(Int64.min) ? .min : Int64(real.rounded(.towardZero))
            note(key, text, "is taken as \(number)")
        } else if let flag = flagAsNumber(trimmed, text, key) {
            number = flag
        } else {
            return nil
        }
        let range: ClosedRange<Int64> = switch type {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
        if !range.contains(number) {
            number = min(max(number, range.lowerBound), range.upperBound)
            note(key, text, "is out of range and taken as \(number)")
        }
        return AttributeValue.integer64(number).converted(to: type)
    }

    private func boolean(_ trimmed: String, _ text: String, _ key: String) -> AttributeValue? {
        if let flag = Self.flag(trimmed) { return .boolean(flag) }
        guard let number = Double(trimmed) else { return nil }
        note(key, text, "is taken as \(number != 0 ? "YES" : "NO")")
        return .boolean(number != 0)
    }

    /// YES or NO (or true/false) on a number: 1 or 0, noted.
    private func flagAsNumber(_ trimmed: String, _ text: String, _ key: String) -> Int64? {
        guard let flag = Self.flag(trimmed) else { return nil }
        note(key, text, "is taken as \(flag ? 1 : 0)")
        return flag ? 1 : 0
    }

    private func date(_ text: String, _ key: String) throws -> AttributeValue {
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)) else { throw invalid(text, key, "a date") }
        return .date(Date(timeIntervalSinceReferenceDate: seconds))
    }

    private static func flag(_ text: String) -> Bool? {
        switch text.uppercased() {
        case "YES", "TRUE", "1": true
        case "NO", "FALSE", "0": false
        default: nil
        }
    }

    private func note(_ key: String, _ text: String, _ outcome: String) {
        notes.notes.append("\(entity).\(attribute): \(key)=\"\(text)\" on a \(type.rawValue) attribute \(outcome), as Core Data reads it")
    }

    private func invalid(_ text: String, _ key: String, _ what: String) -> ModelFileError {
        ModelFileError(
            .invalidValue, file: file, line: node.line, "attribute '\(attribute)' has \(key)=\"\(text)\", which is not \(what)")
    }
}
