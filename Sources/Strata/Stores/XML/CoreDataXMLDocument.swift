import Foundation
import StrataFileFormats

/// A file in Core Data's XML store format (`NSXMLStoreType`): `<database>`, its `<databaseInfo>`
/// (format version, store UUID, next object number, metadata as a property list), then one
/// `<object type="ENTITY" id="zN">` per object with `<attribute name type>value</attribute>` and
/// `<relationship name type="1/1|0/0" destination idrefs="zA zB">`. What an Xcode mapping model
/// (`xcmapping.xml`) is, and what the XML store reads; one parser for both (issue 29).
///
/// Read whole and checked: every object has a type and an id used once, every `idrefs` names an
/// object of the file and of the relationship's destination type. Values stay text here, as the
/// file has them; their meaning (`string`, `int16`, `bool`, `binary` in base64, …) is the reader's.
struct CoreDataXMLDocument {
    struct Object {
        let type: String
        let id: String
        let line: Int
        /// By name: the value's type as written, and its text.
        let attributes: [String: (type: String, text: String)]
        let relationships: [String: Relationship]

        /// An attribute's text, whatever its type.
        subscript(attribute name: String) -> String? { attributes[name]?.text }
    }

    struct Relationship {
        /// `1/1` for a to-one, `0/0` for a to-many.
        let type: String
        let destination: String
        /// The ids it names, in order.
        let ids: [String]
    }

    /// Core Data's document type line, the only one the reader accepts (never resolved).
    static let documentType = #"<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">"#

    let file: URL
    let version: String?
    let storeUUID: String?
    let nextObjectID: Int?
    /// The store metadata: `<databaseInfo><metadata>`'s `<plist>` element, if any.
    let metadata: XMLNode?
    /// The objects, in file order, and by id.
    let objects: [Object]
    let objectsByID: [String: Object]

    /// - Throws: ``ModelFileError``: `.malformedXML` for XML that is not well formed or not a
    ///   `<database>`; `.invalidValue` naming the object and line of an object without type or
    ///   id, an id used twice, or a reference to no object (or to one of another type).
    init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError(.unreadable, file: url, "cannot read the file: \(error.localizedDescription)")
        }
        try self.init(data, file: url)
    }

    init(_ data: Data, file: URL) throws {
        self.file = file
        let root = try XMLNode.parse(data, file: file, allowingDocumentType: Self.documentType)
        guard root.name == "database" else {
            throw ModelFileError(.notAModel, file: file, line: root.line, "the file is not a Core Data XML store (its root is <\(root.name)>, not <database>)")
        }
        let info = root.child(named: "databaseInfo")
        version = info?.child(named: "version")?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        storeUUID = info?.child(named: "UUID")?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        nextObjectID = info?.child(named: "nextObjectID").flatMap { Int($0.text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        metadata = info?.child(named: "metadata")?.child(named: "plist")

        var objects: [Object] = []
        var byID: [String: Object] = [:]
        for node in root.children(named: "object") {
            guard let type = node["type"], !type.isEmpty, let id = node["id"], !id.isEmpty else {
                throw ModelFileError(.invalidValue, file: file, line: node.line, "an <object> has no type or no id")
            }
            var attributes: [String: (type: String, text: String)] = [:]
            for attribute in node.children(named: "attribute") {
                guard let name = attribute["name"] else {
                    throw ModelFileError(.invalidValue, file: file, line: attribute.line, "an attribute of object \(id) has no name")
                }
                attributes[name] = (attribute["type"] ?? "string", attribute.text)
            }
            var relationships: [String: Relationship] = [:]
            for relationship in node.children(named: "relationship") {
                guard let name = relationship["name"], let destination = relationship["destination"] else {
                    throw ModelFileError(.invalidValue, file: file, line: relationship.line, "a relationship of object \(id) has no name or destination")
                }
                let ids = (relationship["idrefs"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
                relationships[name] = Relationship(type: relationship["type"] ?? "0/0", destination: destination, ids: ids)
            }
            let object = Object(type: type, id: id, line: node.line, attributes: attributes, relationships: relationships)
            guard byID.updateValue(object, forKey: id) == nil else {
                throw ModelFileError(.invalidValue, file: file, line: node.line, "the object id \(id) is used twice")
            }
            objects.append(object)
        }
        for object in objects {
            for (name, relationship) in object.relationships.sorted(by: { $0.key < $1.key }) {
                for id in relationship.ids {
                    guard let target = byID[id] else {
                        throw ModelFileError(
                            .invalidValue, file: file, line: object.line,
                            "\(object.type) \(object.id).\(name) refers to \(id), which no object of the file is")
                    }
                    guard target.type == relationship.destination else {
                        throw ModelFileError(
                            .invalidValue, file: file, line: object.line,
                            "\(object.type) \(object.id).\(name) refers to \(id), a \(target.type), not a \(relationship.destination)")
                    }
                }
            }
        }
        self.objects = objects
        objectsByID = byID
    }

    /// The objects of one type, in file order.
    func objects(ofType type: String) -> [Object] {
        objects.filter { $0.type == type }
    }

    /// The objects a relationship of `object` names, in order.
    func targets(of object: Object, _ relationship: String) -> [Object] {
        (object.relationships[relationship]?.ids ?? []).compactMap { objectsByID[$0] }
    }
}
