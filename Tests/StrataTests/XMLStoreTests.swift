import Foundation
import StrataFileFormats
@testable import Strata
import StrataTestSupport
import Testing

/// Core Data's XML store (issue 29, §3): the `<database>` layout of the XML files Core Data
/// wrote beside the project (`fixtures/compiled`: Xcode's mapping models are XML stores), read
/// and written. The conformance and agreement suites run over it too (`StoreKind.xml`).
@Suite struct XMLStoreTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", toMany: "Book", inverse: "author", ordered: true)
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string)
                AttributeDescription("pages", .integer16, optional: true)
                AttributeDescription("cover", .binaryData, optional: true)
                AttributeDescription("read", .boolean, optional: true)
                RelationshipDescription("author", toOne: "Author", inverse: "books", optional: true)
            }
        }
    }

    static func writeLibrary(at url: URL) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        let store = try await coordinator.addPersistentStore(type: .xml, at: url)
        try await backgroundContext(coordinator).perform { context in
            let author = try context.insertNewObject(forEntityName: "Author")
            try author.setValue("Jane <Austen> & \"co\"\r\n", forKey: "name")
            let books = try ["Emma", "Persuasion"].enumerated().map { index, title in
                let book = try context.insertNewObject(forEntityName: "Book")
                try book.setValue(title, forKey: "title")
                try book.setValue(300 + index, forKey: "pages")
                try book.setValue(Data([0, 1, 2, 255]), forKey: "cover")
                try book.setValue(index == 0, forKey: "read")
                return book
            }
            try author.setValue(Array(books.reversed()), forKey: "books")
            try context.save()
        }
        try await coordinator.removePersistentStore(store)
    }

    /// The elements and attributes a file uses, as paths: `database/object@type`.
    static func shape(_ node: XMLNode, path: String = "") -> Set<String> {
        let here = path.isEmpty ? node.name : "\(path)/\(node.name)"
        var shape: Set<String> = [here]
        for attribute in node.attributes.keys { shape.insert("\(here)@\(attribute)") }
        // The metadata's property list is a plist's shape, not the store's.
        if node.name == "plist" { return shape }
        for child in node.children { shape.formUnion(Self.shape(child, path: here)) }
        return shape
    }

    /// A store Strata writes has the layout of the files Core Data wrote — every element and
    /// attribute it uses is one they use, the same header lines, relationships as `min/max`
    /// counts and `idrefs` — and reads back through the mapping models' parser.
    @Test(.enabled(if: Fixtures.hasSharedCompiledModels, "the shared compiled fixtures are not here"))
    func aStoreStrataWritesHasCoreDatasLayout() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.xml")
        try await Self.writeLibrary(at: url)
        let real = CoreDataMappingModelTests.jsq.appendingPathComponent("Version1_to_Version2.xcmappingmodel/xcmapping.xml")
        let realShape = Self.shape(try XMLNode.parse(try Data(contentsOf: real), file: real, allowingDocumentType: CoreDataXMLDocument.documentType))
        let ours = Self.shape(try XMLNode.parse(try Data(contentsOf: url), file: url, allowingDocumentType: CoreDataXMLDocument.documentType))
        #expect(ours.subtracting(realShape).isEmpty, "\(ours.subtracting(realShape).sorted())")
        let realLines = String(decoding: try Data(contentsOf: real), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let ourLines = String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(Array(ourLines.prefix(6)) == Array(realLines.prefix(6)).enumerated().map { $0.offset == 5 ? ourLines[5] : $0.element })

        let document = try CoreDataXMLDocument(contentsOf: url)
        #expect(document.objects.map(\.type).sorted() == ["AUTHOR", "BOOK", "BOOK"])
        let author = try #require(document.objects(ofType: "AUTHOR").first)
        let books = try #require(author.relationships["books"])
        #expect(books.type == "0/0" && books.destination == "BOOK")
        #expect(document.targets(of: author, "books").map { $0[attribute: "title"] } == ["Persuasion", "Emma"])
        let emma = try #require(document.objects(ofType: "BOOK").first { $0[attribute: "title"] == "Emma" })
        #expect(emma.relationships["author"]?.type == "0/1" && emma.relationships["author"]?.ids == [author.id])
        #expect(emma.attributes["pages"]?.type == "int16" && emma.attributes["pages"]?.text == "300")
        #expect(emma.attributes["read"]?.type == "bool" && emma.attributes["read"]?.text == "1")
        #expect(emma.attributes["cover"]?.type == "binary" && emma.attributes["cover"]?.text == "AAEC/w==")
        #expect(Set(document.objects.map(\.id)).count == 3 && (document.nextObjectID ?? 0) > document.objects.compactMap { Int($0.id.dropFirst()) }.max() ?? 0)
    }

    /// What the store writes reads back the same, special characters included.
    @Test func valuesAndOrderReadBack() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.xml")
        try await Self.writeLibrary(at: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try await coordinator.addPersistentStore(type: .xml, at: url)
        let result = try await backgroundContext(coordinator).perform { context in
            let author = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")).first)
            let books = try #require(try author.value(forKey: "books") as? [ManagedObject])
            return (try author.value(forKey: "name") as? String, try books.map { try $0.value(forKey: "title") as? String ?? "" })
        }
        #expect(result.0 == "Jane <Austen> & \"co\"\r\n")
        #expect(result.1 == ["Persuasion", "Emma"])
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: url)
        #expect(metadata[PersistentStore.storeTypeKey] == .string("XML"))
        #expect(metadata[PersistentStore.modelVersionHashesKey] != nil)
    }

    /// An XML store Core Data wrote — Xcode's mapping model `Version2_to_Version3`, whose objects
    /// are Xcode's own mapping entities — opens read-only with a model of those entities, and
    /// its objects, values and relationships read as the file says.
    @Test(.enabled(if: Fixtures.hasSharedCompiledModels, "the shared compiled fixtures are not here"))
    func anXMLStoreCoreDataWroteReads() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("XDDevMappingModel") {
                AttributeDescription("sourcemodelpath", .string, optional: true)
                AttributeDescription("sourcemodeldata", .binaryData, optional: true)
                AttributeDescription("destinationmodelpath", .string, optional: true)
                AttributeDescription("destinationmodeldata", .binaryData, optional: true)
                RelationshipDescription("entitymappings", toMany: "XDDevEntityMapping", inverse: "mappingmodel")
            }
            EntityDescription("XDDevEntityMapping") {
                AttributeDescription("name", .string, optional: true)
                AttributeDescription("sourcename", .string, optional: true)
                AttributeDescription("destinationname", .string, optional: true)
                AttributeDescription("mappingtypename", .string, optional: true)
                AttributeDescription("mappingnumber", .integer16, optional: true)
                AttributeDescription("autogenerateexpression", .boolean, optional: true)
                RelationshipDescription("mappingmodel", toOne: "XDDevMappingModel", inverse: "entitymappings", optional: true)
                RelationshipDescription("attributemappings", toMany: "XDDevAttributeMapping", inverse: "entitymapping")
                RelationshipDescription("relationshipmappings", toMany: "XDDevRelationshipMapping", inverse: "entitymapping")
            }
            EntityDescription("XDDevAttributeMapping") {
                AttributeDescription("name", .string, optional: true)
                AttributeDescription("valueexpressiondata", .binaryData, optional: true)
                RelationshipDescription("entitymapping", toOne: "XDDevEntityMapping", inverse: "attributemappings", optional: true)
            }
            EntityDescription("XDDevRelationshipMapping") {
                AttributeDescription("name", .string, optional: true)
                AttributeDescription("autogenerateexpression", .boolean, optional: true)
                RelationshipDescription("entitymapping", toOne: "XDDevEntityMapping", inverse: "relationshipmappings", optional: true)
            }
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("xcmapping.xml")
        try FileManager.default.copyItem(at: CoreDataMappingModelTests.jsq.appendingPathComponent("Version2_to_Version3.xcmappingmodel/xcmapping.xml"), to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(
            type: .xml, at: url, options: [PersistentStoreOption.readOnly: true, PersistentStoreOption.skipsModelVersionCheck: true])
        let mappings = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "XDDevEntityMapping", sortDescriptors: [.ascending("mappingnumber")])).map { mapping in
                let attributes = try #require(try mapping.value(forKey: "attributemappings") as? Set<ManagedObject>)
                let expressions = try attributes.compactMap { try $0.value(forKey: "valueexpressiondata") as? Data }.map {
                    try ValueExpression(keyedArchive: $0).description
                }
                return "\(try mapping.value(forKey: "name") ?? "-") \(try mapping.value(forKey: "sourcename") ?? "-")→\(try mapping.value(forKey: "destinationname") ?? "-") #\(try mapping.value(forKey: "mappingnumber") ?? 0) auto=\(try mapping.value(forKey: "autogenerateexpression") ?? false) \(expressions.sorted())"
            }
        }
        #expect(mappings == [
            "- Employee→Employee #1 auto=true []",
            #"EmployeeToCompany Employee→Company #2 auto=true ["$source.companyDateFounded", "$source.companyName", "$source.companyProfits"]"#,
        ])
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: url)
        #expect(metadata[PersistentStore.storeUUIDKey] == .string("D9B5F5AA-4EA4-48EA-A06B-A54CE5F0E579"))
        #expect(metadata["NSPersistenceFrameworkVersion"] == .integer(641))
        #expect(metadata[PersistentStore.storeTypeKey] == .string("XML"))
    }

    /// Persistent history is not an XML store's (Core Data records it in SQLite stores only):
    /// asking for it is refused, rather than keeping history that vanishes with the coordinator.
    @Test func historyTrackingIsRefused() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        let error = await #expect(throws: PersistenceError.self) {
            try await coordinator.addPersistentStore(
                type: .xml, at: directory.appendingPathComponent("Library.xml"), options: [PersistentStoreOption.persistentHistoryTracking: true])
        }
        #expect(error?.code == .unsupportedRequest)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Library.xml").path))
    }

    /// Damaged or foreign files are typed errors naming what is wrong, and stay as they were.
    @Test func damagedFilesAreTypedErrors() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.xml")
        try await Self.writeLibrary(at: url)
        let good = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        let cases: [(String, StoreError.Code, String)] = [
            (String(good.prefix(good.count / 2)), .corruptFile, "not a Core Data XML store"),
            (good.replacingOccurrences(of: "\"AUTHOR\"", with: "\"WRITER\""), .unknownEntity, "WRITER"),
            (good.replacingOccurrences(of: ">300<", with: ">three hundred<"), .corruptFile, "'three hundred' is not a int16 value"),
            (good.replacingOccurrences(of: "<database>", with: "<library>").replacingOccurrences(of: "</database>", with: "</library>"), .notAStore, "<library>"),
            (good.replacingOccurrences(of: "<UUID>", with: "<UUID>not a uuid/"), .corruptFile, "UUID"),
        ]
        for (text, code, words) in cases {
            let broken = directory.appendingPathComponent("Broken-\(UUID().uuidString).xml")
            try Data(text.utf8).write(to: broken)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
            let error = await #expect(throws: StoreError.self) { try await coordinator.addPersistentStore(type: .xml, at: broken) }
            #expect(error?.code == code && error?.description.contains(words) == true, "\(String(describing: error))")
            #expect(String(decoding: try Data(contentsOf: broken), as: UTF8.self) == text)
        }
    }
}
