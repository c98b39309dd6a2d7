import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of an XML document, with the line it starts on: enough of a DOM to read a
/// model file and point at the line of what is wrong.
package final class XMLNode {
    package let name: String
    package let attributes: [String: String]
    package let line: Int
    package private(set) var children: [XMLNode] = []
    /// The text directly inside the element (an XML store's values).
    package private(set) var text = ""

    package init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    package func children(named name: String) -> [XMLNode] {
        children.filter { $0.name == name }
    }

    package func child(named name: String) -> XMLNode? {
        children.first { $0.name == name }
    }

    package subscript(attribute: String) -> String? {
        attributes[attribute]
    }

    /// Whether a YES/NO attribute says YES.
    package func flag(_ attribute: String) -> Bool {
        attributes[attribute] == "YES"
    }

    /// The largest model file Strata reads: real ones are kilobytes; this bounds what a corrupt
    /// or foreign file can make the parser hold.
    package static let maximumSize = 64 << 20

    /// Why a document could not be read: too large, or not well-formed XML (with the line, when
    /// the parser knows it).
    package struct Failure: Error, CustomStringConvertible {
        package enum Kind: Sendable { case tooLarge, malformed }
        package let kind: Kind
        package let line: Int?
        package let description: String
    }

    /// Parses an XML document. Throws the parser's message and line when it is not well formed.
    ///
    /// The bytes are checked before the parser sees them: FoundationXML's `XMLParser` traps on
    /// names and values that are not UTF-8 and crashes on some processing instructions, and
    /// Xcode writes model files in UTF-8, with an XML declaration and no other instruction,
    /// document type or entity (which could also make a small file expand without bound).
    /// - Parameter allowingDocumentType: A `<!DOCTYPE …>` allowed at the top (Core Data's XML
    ///   store names its DTD so); it is never resolved. Any other declaration is still refused.
    package static func parse(_ data: Data, allowingDocumentType allowed: String? = nil) throws(Failure) -> XMLNode {
        func malformed(_ line: Int?, _ reason: String) -> Failure { Failure(kind: .malformed, line: line, description: reason) }
        guard data.count <= maximumSize else {
            throw Failure(kind: .tooLarge, line: nil, description: "the file is \(data.count) bytes, more than any model file (at most \(maximumSize))")
        }
        if let (offset, line) = firstInvalidUTF8(in: data) {
            throw malformed(
                line,
                "the file is not UTF-8 text: the byte at offset \(offset) (0x\(String(data[data.startIndex + offset], radix: 16, uppercase: true))) does not begin a valid UTF-8 character")
        }
        try checkMarkup(data, allowingDocumentType: allowed)
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if let (line, reason) = builder.firstError {
            throw malformed(line, "the XML is not well formed: \(reason)")
        }
        if let mismatch = builder.mismatch {
            throw malformed(mismatch.line, "the XML is not well formed: \(mismatch.message)")
        }
        if let unclosed = builder.stack.last {
            throw malformed(unclosed.line, "the XML is not well formed: <\(unclosed.name)> is never closed")
        }
        guard parsed, let root = builder.root else {
            let reason = builder.error ?? parser.parserError
            throw malformed(
                parser.lineNumber > 0 ? parser.lineNumber : nil,
                "the XML is not well formed\(reason.map { ": \($0.localizedDescription)" } ?? "")")
        }
        return root
    }

    /// Refuses markup that Xcode never writes in a model file: a processing instruction other
    /// than the XML declaration at the very start, and document type or entity declarations.
    private static func checkMarkup(_ data: Data, allowingDocumentType allowed: String?) throws(Failure) {
        let bytes = [UInt8](data)
        let allowedStart = allowed.flatMap { bytes.firstRange(of: Array($0.utf8))?.lowerBound }
        var line = 1
        for index in bytes.indices {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count else { continue }
            switch bytes[index + 1] {
            case UInt8(ascii: "?"):
                let declaration = Array("<?xml ".utf8)
                let isDeclaration = index == 0 && bytes.starts(with: declaration)
                    && bytes.firstRange(of: Array("version=".utf8)) != nil
                guard isDeclaration else {
                    throw Failure(
                        kind: .malformed, line: line,
                        description: index == 0
                            ? "the XML declaration is malformed (it must read <?xml version=\"1.0\" …?>)"
                            : "a processing instruction (<?…?>) is not part of a model file")
                }
            case UInt8(ascii: "!") where (bytes[(index + 2)...].starts(with: Array("DOCTYPE".utf8)) && index != allowedStart)
                || bytes[(index + 2)...].starts(with: Array("ENTITY".utf8)):
                throw Failure(kind: .malformed, line: line, description: "a document type or entity declaration is not part of a model file")
            default: continue
            }
        }
    }

    /// Where the first byte that is not valid UTF-8 is (its offset and 1-based line), if any.
    private static func firstInvalidUTF8(in data: Data) -> (offset: Int, line: Int)? {
        var iterator = data.makeIterator()
        var decoder = Unicode.UTF8()
        var offset = 0, line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
                if scalar == "\n" { line += 1 }
            case .emptyInput:
                return nil
            case .error:
                return (offset, line)
            }
        }
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: XMLNode?
        var stack: [XMLNode] = []
        var error: (any Error)?
        /// The first error the parser reported, where it saw it: later ones may follow from it.
        var firstError: (line: Int, reason: String)?
        /// An end tag that does not close the open element (some parsers recover from it).
        var mismatch: (line: Int, message: String)?

        /// Words for the parser's commonest error codes (`XMLParser.ErrorCode`).
        static func describe(_ error: NSError, inside open: XMLNode?) -> String {
            let element = open.map { "<\($0.name)> (line \($0.line))" } ?? "the document"
            return switch error.code {
            case 4: "the document is empty"
            case 5: "the document ends inside \(element)"
            case 76: "an end tag does not match the open element \(element)"
            case 73, 65, 41, 38: "an element or attribute is malformed inside \(element)"
            default: "parser error \(error.code) inside \(element)"
            }
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            let node = XMLNode(name: elementName, attributes: attributes, line: parser.lineNumber)
            if let parent = stack.last {
                parent.children.append(node)
            } else {
                root = node
            }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let open = stack.last, open.name == elementName else {
                if mismatch == nil {
                    let expected = stack.last.map { "</\($0.name)> (opened on line \($0.line))" } ?? "no end tag"
                    mismatch = (parser.lineNumber, "</\(elementName)> where \(expected) was expected")
                }
                parser.abortParsing()
                return
            }
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            error = parseError
            if firstError == nil {
                firstError = (parser.lineNumber, Self.describe(parseError as NSError, inside: stack.last))
            }
        }
    }
}
