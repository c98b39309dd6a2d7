import Foundation
import StrataFileFormats

/// Store metadata as an XML property list (`<plist version="1.0"><dict>…`), as Core Data's XML
/// store keeps it in `<databaseInfo><metadata>`: read from the parsed XML with Strata's own
/// reader (a damaged list is an error, never a crash), written as text.
enum XMLPropertyList {
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The dictionary a `<plist>` (or `<dict>`) element holds.
    static func dictionary(_ node: XMLNode) throws -> [String: MetadataValue] {
        let dict = node.name == "plist" ? node.children.first : node
        guard let dict, case .dictionary(let entries) = try value(dict, depth: 0) else {
            throw Unreadable(description: "the metadata (line \(node.line)) is not a dictionary")
        }
        return entries
    }

    private static func value(_ node: XMLNode, depth: Int) throws -> MetadataValue {
        guard depth < 32 else { throw Unreadable(description: "the metadata nests too deep (line \(node.line))") }
        let text = node.text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch node.name {
        case "string": return .string(node.text)
        case "integer":
            guard let number = Int64(text) else { throw Unreadable(description: "'\(text)' is not an integer (line \(node.line))") }
            return .integer(number)
        case "real":
            guard let number = Double(text) else { throw Unreadable(description: "'\(text)' is not a real (line \(node.line))") }
            return .double(number)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "data":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw Unreadable(description: "the data on line \(node.line) is not base64")
            }
            return .data(data)
        case "date":
            guard let date = ISO8601DateFormatter().date(from: text) else { throw Unreadable(description: "'\(text)' is not a date (line \(node.line))") }
            return .date(date)
        case "array": return .array(try node.children.map { try value($0, depth: depth + 1) })
        case "dict":
            var entries: [String: MetadataValue] = [:]
            var children = node.children[...]
            while let key = children.popFirst() {
                guard key.name == "key", let item = children.popFirst() else {
                    throw Unreadable(description: "a dictionary on line \(node.line) is not key, value, key, value…")
                }
                entries[key.text] = try value(item, depth: depth + 1)
            }
            return .dictionary(entries)
        default:
            throw Unreadable(description: "<\(node.name)> (line \(node.line)) is not a property list value")
        }
    }

    /// `dictionary` as a `<plist>` element, indented by `indent`.
    static func text(_ dictionary: [String: MetadataValue], indent: String) throws -> String {
        var lines = ["\(indent)<plist version=\"1.0\">"]
        try append(.dictionary(dictionary), indent: indent + "    ", to: &lines)
        lines.append("\(indent)</plist>")
        return lines.joined(separator: "\n")
    }

    private static func append(_ value: MetadataValue, indent: String, to lines: inout [String]) throws {
        switch value {
        case .string(let text): lines.append("\(indent)<string>\(try XMLStoreValues.escaped(text))</string>")
        case .integer(let number): lines.append("\(indent)<integer>\(number)</integer>")
        case .double(let number): lines.append("\(indent)<real>\(number)</real>")
        case .bool(let flag): lines.append("\(indent)<\(flag)/>")
        case .data(let data): lines.append("\(indent)<data>\(data.base64EncodedString())</data>")
        case .date(let date):
            let formatter = ISO8601DateFormatter()
            lines.append("\(indent)<date>\(formatter.string(from: date))</date>")
        case .array(let items):
            lines.append("\(indent)<array>")
            for item in items { try append(item, indent: indent + "    ", to: &lines) }
            lines.append("\(indent)</array>")
        case .dictionary(let entries):
            lines.append("\(indent)<dict>")
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                lines.append("\(indent)    <key>\(try XMLStoreValues.escaped(key))</key>")
                try append(item, indent: indent + "    ", to: &lines)
            }
            lines.append("\(indent)</dict>")
        }
    }
}
