import Foundation
import Strata
import Testing

/// Bad model files give a typed error with the file and the line.
@Suite struct ModelFileErrorTests {
    static let header = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#

    /// Reads `contents` as a model file, returning the error it gives.
    func error(reading contents: String) throws -> ModelFileError? {
        try error(reading: Data(contents.utf8))
    }

    func error(reading contents: Data) throws -> ModelFileError? {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("Bad.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try contents.write(to: model.appendingPathComponent("contents"))
        return #expect(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: model) }
    }

    @Test func anUnknownAttributeTypeNamesItself() throws {
        let error = try error(reading: """
            \(Self.header)
            <model>
                <entity name="Book">
                    <attribute name="title" attributeType="Text"/>
                </entity>
            </model>
            """)
        #expect(error?.code == .unknownAttributeType)
        #expect(error?.line == 4)
        #expect(error?.message.hasPrefix("attribute 'title' has the unknown type 'Text' (known: Integer 16,") == true)
        #expect(error?.file.hasSuffix("Bad.xcdatamodel/contents") == true)
    }

    /// FoundationXML's parser traps on names that are not UTF-8: the bytes are checked first.
    @Test func bytesThatAreNotUTF8AreRefusedBeforeTheParserSeesThem() throws {
        var bytes = Data("\(Self.header)\n<model>\n<entity name=\"Bo".utf8)
        bytes.append(0xE9)
        bytes += Data("k\"/>\n</model>".utf8)
        let error = try error(reading: bytes)
        #expect(error?.code == .malformedXML)
        #expect(error?.line == 3)
        #expect(error?.message == "the file is not UTF-8 text: the byte at offset 80 (0xE9) does not begin a valid UTF-8 character")
    }

    /// Markup Xcode never writes, some of which crashes FoundationXML's parser.
    @Test(arguments: [
        ("<?xml?>\n<model/>", 1, "the XML declaration is malformed (it must read <?xml version=\"1.0\" …?>)"),
        ("\(header)\n<model>\n<?php ?>\n</model>", 3, "a processing instruction (<?…?>) is not part of a model file"),
        ("\(header)\n<!DOCTYPE model [<!ENTITY a \"aaaa\">]>\n<model/>", 2,
         "a document type or entity declaration is not part of a model file"),
    ])
    func markupXcodeNeverWritesIsRefused(_ contents: String, line: Int, message: String) throws {
        let error = try error(reading: contents)
        #expect(error?.code == .malformedXML)
        #expect(error?.line == line)
        #expect(error?.message == message)
    }

    @Test func malformedXMLGivesItsLine() throws {
        let error = try error(reading: """
            \(Self.header)
            <model>
                <entity name="Book">
                    <attribute name="title" attributeType="String">
                </entity>
            </model>
            """)
        #expect(error?.code == .malformedXML)
        #expect(error?.line == 5)
        #expect(error?.message == "the XML is not well formed: an end tag does not match the open element <attribute> (line 4)")
    }

    @Test func aMissingNameIsReported() throws {
        let error = try error(reading: "\(Self.header)\n<model>\n<entity representedClassName=\"X\"/>\n</model>")
        #expect(error?.code == .missingAttribute)
        #expect(error?.description.hasSuffix("Bad.xcdatamodel/contents:3: <entity> has no 'name' attribute") == true)
    }

    @Test func aBadDefaultValueIsReported() throws {
        let error = try error(reading: """
            \(Self.header)
            <model>
                <entity name="Book">
                    <attribute name="pages" attributeType="Integer 16" defaultValueString="many"/>
                </entity>
            </model>
            """)
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "attribute 'pages' has defaultValueString=\"many\", which is not a Integer 16 value")
    }

    @Test func anUnsoundModelPointsAtTheEntity() throws {
        let error = try error(reading: """
            \(Self.header)
            <model>
                <entity name="Author"/>
                <entity name="Book">
                    <relationship name="author" maxCount="1" deletionRule="Nullify" destinationEntity="Writer"/>
                </entity>
            </model>
            """)
        #expect(error?.code == .invalidModel)
        #expect(error?.line == 4)
        #expect(error?.modelError?.code == .unknownDestination)
    }

    @Test func notAModelAndNotAFileAreReported() throws {
        let other = try error(reading: "\(Self.header)\n<plist/>")
        #expect(other?.code == .notAModel)
        let missing = #expect(throws: ModelFileError.self) {
            try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "/nonexistent/Model.xcdatamodel"))
        }
        #expect(missing?.code == .unreadable)
        let empty = try error(reading: "")
        #expect(empty?.code == .malformedXML)
    }
}
