import Foundation
import Strata

/// Writes an Xcode mapping model (`X.xcmappingmodel/xcmapping.xml`) as Xcode lays one out — the
/// layout of the real files in `fixtures/compiled` (a Core Data XML store of `XDDEVMAPPINGMODEL`,
/// `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING` and `XDDEVRELATIONSHIPMAPPING` objects, value
/// expressions as base64 keyed archives) — so that tests bring mapping models of their own.
struct XcodeMappingWriter {
    struct Entity {
        var name: String?
        var source: String?
        var destination: String?
        var policy: String?
        var autogenerates = true
        var attributes: [(String, ValueExpression?)] = []
        var relationships: [(String, ValueExpression?)] = []
    }

    var sourceModelPath: String
    var destinationModelPath: String
    var entities: [Entity]

    /// Writes the folder at `url` (`….xcmappingmodel`).
    func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        var next = 102
        func id() -> String {
            defer { next += 1 }
            return "z\(next)"
        }
        let root = id()
        var objects: [String] = []
        var entityIDs: [String] = []
        for entity in entities {
            let entityID = id()
            entityIDs.append(entityID)
            var propertyIDs: [[String]] = [[], []]
            for (kind, properties) in [entity.attributes, entity.relationships].enumerated() {
                for (name, expression) in properties {
                    let propertyID = id()
                    propertyIDs[kind].append(propertyID)
                    var lines = ["<attribute name=\"name\" type=\"string\">\(name)</attribute>"]
                    if let expression {
                        lines.insert("<attribute name=\"valueexpressiondata\" type=\"binary\">\(try expression.keyedArchive().base64EncodedString(options: .lineLength76Characters))\n</attribute>", at: 0)
                    }
                    if kind == 1 { lines.insert("<attribute name=\"autogenerateexpression\" type=\"bool\">1</attribute>", at: 0) }
                    lines.append("<relationship name=\"entitymapping\" type=\"1/1\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"\(entityID)\"></relationship>")
                    objects.append(object(kind == 0 ? "XDDEVATTRIBUTEMAPPING" : "XDDEVRELATIONSHIPMAPPING", propertyID, lines))
                }
            }
            var lines: [String] = []
            if let policy = entity.policy { lines.append("<attribute name=\"migrationpolicyclassname\" type=\"string\">\(policy)</attribute>") }
            if let source = entity.source { lines.append("<attribute name=\"sourcename\" type=\"string\">\(source)</attribute>") }
            if let name = entity.name { lines.append("<attribute name=\"name\" type=\"string\">\(name)</attribute>") }
            lines.append("<attribute name=\"mappingtypename\" type=\"string\">Undefined</attribute>")
            lines.append("<attribute name=\"mappingnumber\" type=\"int16\">\(entityIDs.count)</attribute>")
            if let destination = entity.destination { lines.append("<attribute name=\"destinationname\" type=\"string\">\(destination)</attribute>") }
            lines.append("<attribute name=\"autogenerateexpression\" type=\"bool\">\(entity.autogenerates ? 1 : 0)</attribute>")
            lines.append("<relationship name=\"mappingmodel\" type=\"1/1\" destination=\"XDDEVMAPPINGMODEL\" idrefs=\"\(root)\"></relationship>")
            lines.append(
                "<relationship name=\"attributemappings\" type=\"0/0\" destination=\"XDDEVATTRIBUTEMAPPING\" idrefs=\"\(propertyIDs[0].joined(separator: " "))\"></relationship>")
            lines.append(
                "<relationship name=\"relationshipmappings\" type=\"0/0\" destination=\"XDDEVRELATIONSHIPMAPPING\" idrefs=\"\(propertyIDs[1].joined(separator: " "))\"></relationship>")
            objects.append(object("XDDEVENTITYMAPPING", entityID, lines))
        }
        objects.append(
            object("XDDEVMAPPINGMODEL", root, [
                "<attribute name=\"sourcemodelpath\" type=\"string\">\(sourceModelPath)</attribute>",
                "<attribute name=\"destinationmodelpath\" type=\"string\">\(destinationModelPath)</attribute>",
                "<relationship name=\"entitymappings\" type=\"0/0\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"\(entityIDs.joined(separator: " "))\"></relationship>",
            ]))
        let text = """
            <?xml version="1.0" standalone="no"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>\(UUID().uuidString)</UUID>
                    <nextObjectID>\(next)</nextObjectID>
                    <metadata>
                        <plist version="1.0">
                            <dict>
                                <key>NSPersistenceFrameworkVersion</key>
                                <integer>1414</integer>
                            </dict>
                        </plist>
                    </metadata>
                </databaseInfo>
            \(objects.joined(separator: "\n"))
            </database>

            """
        try Data(text.utf8).write(to: url.appendingPathComponent("xcmapping.xml"))
    }

    private func object(_ type: String, _ id: String, _ lines: [String]) -> String {
        (["    <object type=\"\(type)\" id=\"\(id)\">"] + lines.map { "        " + $0 } + ["    </object>"]).joined(separator: "\n")
    }
}
