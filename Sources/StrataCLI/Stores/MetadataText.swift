import Foundation
import Strata

/// A metadata value as a person reads it (`strata inspect`), and as JSON (`--json`): numbers as
/// numbers, data as hex, dates in ISO 8601, arrays and dictionaries in their own brackets —
/// never Swift's debug form of Strata's types.
struct MetadataText: Encodable {
    let value: MetadataValue

    init(_ value: MetadataValue) {
        self.value = value
    }

    var text: String {
        switch value {
        case .string(let string): string
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .data(let data): data.count <= 64 ? data.map { String(format: "%02x", $0) }.joined() : "\(data.count) bytes"
        case .date(let date): date.formatted(Date.ISO8601FormatStyle())
        case .array(let items): "[" + items.map { MetadataText($0).text }.joined(separator: ", ") + "]"
        case .dictionary(let entries):
            "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \(MetadataText($0.value).text)" }.joined(separator: ", ") + "}"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .string(let string): try container.encode(string)
        case .integer(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .data, .date: try container.encode(text)
        case .array(let items): try container.encode(items.map(MetadataText.init))
        case .dictionary(let entries): try container.encode(entries.mapValues(MetadataText.init))
        }
    }
}

/// "1 object", "2 objects": a count with its noun, in the number it takes.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
