import Foundation

extension EvaluationValue {
    /// The value as a section's name: its text, as Core Data names sections by the section
    /// key's `description` — strings as they are, numbers in their shortest form, dates in
    /// ISO 8601, IDs by their URI; `nil` is `""`, as in Core Data.
    var sectionName: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "1" : "0"
        case .integer(let value): String(value)
        case .double(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .decimal(let value): "\(value)"
        case .string(let value): value
        case .date(let value): value.formatted(.iso8601)
        case .data(let value): value.base64EncodedString()
        case .uuid(let value): value.uuidString
        case .uri(let value): value.absoluteString
        case .objectID(let id): id.uriRepresentation().absoluteString
        case .object(let ref): ref.id.uriRepresentation().absoluteString
        case .collection(let values): values.map(\.sectionName).joined(separator: ", ")
        case .dictionary(let values): values.keys.sorted().map { "\($0) = \(values[$0]!.sectionName)" }.joined(separator: ", ")
        }
    }
}
