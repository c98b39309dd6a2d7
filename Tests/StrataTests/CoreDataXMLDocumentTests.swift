import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Core Data's XML store format, the one parser for Xcode mapping models (`xcmapping.xml`) and
/// the XML store (issue 29): the real mapping models read whole, every reference resolved, as
/// Python's own XML parser counts them; damaged and foreign files are typed errors.
@Suite(.enabled(if: Fixtures.hasSharedCompiledModels, "the shared compiled fixtures are not here"))
struct CoreDataXMLDocumentTests {
    static let mappingModels = [
        "alemar11__CoreDataPlus/Tests/Resources/SampleModel/MappingModels/V2toV3.xcmappingmodel/xcmapping.xml",
        "jessesquires__JSQCoreDataKit/Example/ExampleModel/ExampleModel/Version1_to_Version2.xcmappingmodel/xcmapping.xml",
        "jessesquires__JSQCoreDataKit/Example/ExampleModel/ExampleModel/Version2_to_Version3.xcmappingmodel/xcmapping.xml",
    ]

    @Test(arguments: mappingModels)
    func aRealMappingModelReadsWhole(_ path: String) async throws {
        let url = Fixtures.sharedCompiledModels.appendingPathComponent(path)
        let document = try CoreDataXMLDocument(contentsOf: url)
        // Counted independently: object types, attributes and references per type.
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "-c",
            """
            import json, sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            counts = {}
            for o in root.iter('object'):
                c = counts.setdefault(o.get('type'), [0, 0, 0])
                c[0] += 1
                c[1] += len(o.findall('attribute'))
                c[2] += sum(len((r.get('idrefs') or '').split()) for r in o.findall('relationship'))
            info = root.find('databaseInfo')
            print(json.dumps({'counts': counts, 'uuid': info.find('UUID').text, 'next': int(info.find('nextObjectID').text)}))
            """,
            url.path,
        ])
        let expected = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        let counts = try #require(expected["counts"] as? [String: [Int]])
        for (type, numbers) in counts {
            let objects = document.objects(ofType: type)
            #expect(objects.count == numbers[0], "\(type)")
            #expect(objects.reduce(0) { $0 + $1.attributes.count } == numbers[1], "\(type)")
            #expect(objects.reduce(0) { total, object in total + object.relationships.values.reduce(0) { $0 + $1.ids.count } } == numbers[2], "\(type)")
        }
        #expect(document.storeUUID == expected["uuid"] as? String)
        #expect(document.nextObjectID == expected["next"] as? Int)
        // Every entity mapping belongs to the one mapping model, and its attribute mappings to it.
        let model = try #require(document.objects(ofType: "XDDEVMAPPINGMODEL").first)
        for mapping in document.objects(ofType: "XDDEVENTITYMAPPING") {
            #expect(document.targets(of: mapping, "mappingmodel").map(\.id) == [model.id])
            for attribute in document.targets(of: mapping, "attributemappings") {
                #expect(document.targets(of: attribute, "entitymapping").map(\.id) == [mapping.id])
            }
        }
        // A binary attribute holds base64: here, archived models.
        let source = try #require(model[attribute: "sourcemodeldata"])
        #expect(Data(base64Encoded: source, options: .ignoreUnknownCharacters)?.starts(with: Array("bplist00".utf8)) == true)
    }

    @Test func theCustomPolicyOfARealMappingModelIsRead() throws {
        let document = try CoreDataXMLDocument(contentsOf: Fixtures.sharedCompiledModels.appendingPathComponent(Self.mappingModels[0]))
        let policies = Set(document.objects(ofType: "XDDEVENTITYMAPPING").compactMap { $0[attribute: "migrationpolicyclassname"] })
        #expect(policies == ["REPLACE_AT_RUNTIME.V2to3MakerPolicy"])
    }

    @Test func damagedDocumentsAreTypedErrors() throws {
        let file = URL(fileURLWithPath: "/tmp/damaged.xml")
        func error(_ text: String) -> ModelFileError? {
            #expect(throws: ModelFileError.self) { try CoreDataXMLDocument(Data(text.utf8), file: file) }
        }
        let head = "<?xml version=\"1.0\" standalone=\"no\"?>\n\(CoreDataXMLDocument.documentType)\n"
        #expect(error(head + "<database><object type=\"A\" id=\"z1\"><relationship name=\"r\" type=\"1/1\" destination=\"A\" idrefs=\"z9\"></relationship></object></database>")?
            .message == "A z1.r refers to z9, which no object of the file is")
        #expect(error(head + "<database><object type=\"A\" id=\"z1\"/><object type=\"A\" id=\"z1\"/></database>")?.message == "the object id z1 is used twice")
        #expect(error(head + "<database><object type=\"A\" id=\"z1\"/><object type=\"B\" id=\"z2\"><relationship name=\"r\" destination=\"B\" idrefs=\"z1\"/></object></database>")?
            .message == "B z2.r refers to z1, a A, not a B")
        #expect(error(head + "<model/>")?.code == .notAModel)
        // Another document type, or entities, are refused before parsing.
        #expect(error("<?xml version=\"1.0\"?>\n<!DOCTYPE database [<!ENTITY x \"y\">]>\n<database/>")?.code == .malformedXML)
        // Every cut of a real file: a document or a typed error, never a crash.
        let real = try Data(contentsOf: Fixtures.sharedCompiledModels.appendingPathComponent(Self.mappingModels[0]))
        for length in stride(from: 0, to: real.count, by: max(1, real.count / 200)) {
            do {
                _ = try CoreDataXMLDocument(real.prefix(length), file: file)
            } catch is ModelFileError {
            } catch {
                Issue.record("an untyped error: \(error)")
            }
        }
    }
}
