import Foundation
import Strata

/// An attribute value as JSON, through `AttributeValue`'s own JSON form, but for dates: seconds
/// since 2001 as a number, which keeps every bit (ISO 8601 text stops at milliseconds).
struct JSONValue: Codable {
    let object: Any

    init(_ value: AttributeValue) {
        if case .date(let date) = value {
            object = date.timeIntervalSinceReferenceDate
        } else {
            object = value.jsonObject
        }
    }

    func attributeValue(of type: AttributeType) throws -> AttributeValue {
        if type == .date, let seconds = object as? Double { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
        return try AttributeValue(jsonObject: object, type: type)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let data = Data(try container.decode(String.self).utf8)
        object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    func encode(to encoder: any Encoder) throws {
        // Kept as the JSON text of the value: JSONSerialization writes every form jsonObject gives.
        var container = encoder.singleValueContainer()
        let data = try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed, .sortedKeys])
        try container.encode(String(decoding: data, as: UTF8.self))
    }
}
