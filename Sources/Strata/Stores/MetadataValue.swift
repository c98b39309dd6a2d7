import Foundation

/// A value in a store's metadata: the kinds of value a property list holds, so that every store
/// format can write it.
public enum MetadataValue: Sendable, Hashable, Codable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    case array([MetadataValue])
    case dictionary([String: MetadataValue])

    /// The string, when the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
