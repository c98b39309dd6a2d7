import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of an XML document, with the line it starts on: enough of a DOM to read a
/// model file and point at the line of what is wrong.
final class XMLNode {
    let name: String
    let attributes: [String: String]
    let line: Int
    private(set) var children: [XMLNode] = []

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    func children(named name: String) -> [XMLNode] {
        children.filter { $0.name == name }
    }

    func child(named name: String) -> XMLNode? {
        children.first { $0.name == name }
    }

    subscript(attribute: String) -> String? {
        attributes[attribute]
    }

    /// Whether a YES/NO attribute says YES.
    func flag(_ attribute: String) -> Bool {
        attributes[attribute] == "YES"
    }

    /// Parses an XML document. Throws the parser's message and line when it is not well formed.
    static func parse(_ data: Data, file: URL) throws -> XMLNode {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else {
            let reason = builder.error ?? parser.parserError
            throw ModelFileError(
                .malformedXML, file: file, line: parser.lineNumber > 0 ? parser.lineNumber : nil,
                "the XML is not well formed\(reason.map { ": \($0.localizedDescription)" } ?? "")")
        }
        return root
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: XMLNode?
        var stack: [XMLNode] = []
        var error: (any Error)?

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
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            error = parseError
        }
    }
}
