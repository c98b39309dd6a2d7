import Foundation
import Strata
import Testing

/// Our own model files, written to cover everything Xcode writes.
@Suite struct ModelFileTests {
    static let everything = Fixtures.models.appendingPathComponent("Everything.xcdatamodel")
    static let catalog = Fixtures.models.appendingPathComponent("Catalog.xcdatamodeld")

    @Test func everyElementIsRead() throws {
        let model = try ManagedObjectModel(contentsOf: Self.everything)
        #expect(model.versionIdentifiers == ["everything-1"])
        let item = try #require(model.entity(named: "Item"))
        #expect(item.managedObjectClassName == "ItemObject")
        #expect(item.isAbstract && item.renamingIdentifier == "Thing" && item.versionHashModifier == "v2")
        #expect(item.codeGenerationType == "class")
        #expect(item.userInfo == ["table": "items"])
        #expect(item.subentityNames == ["Gadget"])
        #expect(item.uniquenessConstraints == [["code", "count16"]])
        #expect(item.indexes.map(\.name) == ["byCode", "byExpression"])
        #expect(item.indexes[0].elements.map(\.isAscending) == [true, false])
        #expect(item.indexes[1].elements.first?.expression == "code.length")

        let a = item.attributesByName
        #expect(a["count16"]?.defaultValue == .integer16(7))
        #expect(a["count16"]?.minimumValue == .integer16(0) && a["count16"]?.maximumValue == .integer16(100))
        #expect(a["count32"]?.defaultValue == .integer32(0), "Xcode lets NO stand for 0")
        #expect(a["count64"]?.isIndexed == true)
        #expect(a["price"]?.defaultValue == .decimal(Decimal(string: "12.50")!))
        #expect(a["ratio"]?.defaultValue == .double(0.25))
        #expect(a["weight"]?.defaultValue == .float(1.5))
        #expect(a["code"]?.minimumLength == 2 && a["code"]?.maximumLength == 10)
        #expect(a["code"]?.regularExpression == "[A-Z]+" && a["code"]?.renamingIdentifier == "sku")
        #expect(a["code"]?.isOptional == false && a["flag"]?.isOptional == true)
        #expect(a["flag"]?.defaultValue == .boolean(true))
        #expect(a["added"]?.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 700_000_000)))
        #expect(a["added"]?.minimumValue == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(a["blob"]?.allowsExternalBinaryDataStorage == true && a["blob"]?.maximumLength == 4096)
        #expect(a["identifier"]?.defaultValue == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(a["identifier"]?.preservesValueInHistoryOnDeletion == true)
        #expect(a["link"]?.defaultValue == .uri(URL(string: "https://example.org/")!))
        #expect(a["tags"]?.valueTransformerName == "NSSecureUnarchiveFromData" && a["tags"]?.attributeValueClassName == "[String]")
        #expect(a["related"]?.type == .objectID && a["related"]?.isTransient == true)
        #expect(a["codeLength"]?.derivationExpression == "code.length")
        #expect(a["note"]?.userInfo == ["purpose": "free text & notes"] && a["note"]?.versionHashModifier == "again")
        #expect(a["count16"]?.usesScalarValueType == true)

        let parts = try #require(item.relationshipsByName["parts"])
        #expect(parts.isToMany && parts.isOrdered && parts.minCount == 1 && parts.maxCount == 5)
        #expect(parts.deleteRule == .cascade && parts.renamingIdentifier == "components" && !parts.isOptional)
        let owner = try #require(item.relationshipsByName["owner"])
        #expect(!owner.isToMany && owner.isOptional && owner.inverseName == "items")
        #expect(model.entity(named: "Part")?.relationshipsByName["item"]?.deleteRule == .deny)
        #expect(model.entity(named: "Person")?.relationshipsByName["items"]?.deleteRule == .noAction)
        #expect(item.fetchedProperties == [FetchedPropertyDescription(name: "cheapParts", destination: "Part", predicateFormat: "cost < 10")])

        let gadget = try #require(model.entity(named: "Gadget"))
        #expect(gadget.superentityName == "Item")
        #expect(gadget.indexes.first?.elements.map(\.propertyName) == ["battery", "code"])
        #expect(model.fetchRequestTemplates == [FetchRequestTemplate(name: "Expensive", entityName: "Part", predicateFormat: "cost > 100")])
        #expect(model.configurations == ["Catalog": ["Item", "Gadget", "Part"], "People": ["Person"]])
        #expect(model.entities(forConfigurationName: "People").map(\.name) == ["Person"])
    }

    @Test func aModelWritesBackAsItWasRead() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try ManagedObjectModel(contentsOf: Self.everything)
        let copy = directory.appendingPathComponent("Copy.xcdatamodel")
        try model.write(toModelAt: copy)
        let reread = try ManagedObjectModel(contentsOf: copy)
        #expect(reread.entityVersionHashesByName == model.entityVersionHashesByName)
        for entity in model.entities {
            let other = try #require(reread.entity(named: entity.name))
            #expect(Set(other.attributes) == Set(entity.attributes), "\(entity.name)")
            #expect(Set(other.relationships) == Set(entity.relationships), "\(entity.name)")
            #expect(other.fetchedProperties == entity.fetchedProperties)
            #expect(other.userInfo == entity.userInfo && other.uniquenessConstraints == entity.uniquenessConstraints)
        }
        #expect(reread.configurations == model.configurations && reread.versionIdentifiers == model.versionIdentifiers)
    }

    @Test func aSwiftModelExportsAndRereadsWithTheSameHashes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try libraryModel()
        let url = directory.appendingPathComponent("Library.xcdatamodel")
        try model.write(toModelAt: url)
        let reread = try ManagedObjectModel(contentsOf: url)
        #expect(reread.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(reread.entity(named: "Book")?.managedObjectClassName == "Book")
        #expect(reread.entity(named: "Book")?.attributesByName["pages"]?.defaultValue == .integer32(0))
    }

    @Test func aBundleListsItsVersionsInOrder() throws {
        let bundle = try ModelBundle(contentsOf: Self.catalog)
        #expect(bundle.name == "Catalog")
        #expect(bundle.versions.map(\.name) == ["Catalog", "Catalog 2", "Catalog 10"], "numbers compare as numbers")
        #expect(bundle.currentVersion.name == "Catalog 2")
        #expect(try ManagedObjectModel(contentsOf: Self.catalog) == bundle.currentVersion.model)
        let missing = #expect(throws: ModelFileError.self) { try bundle.version(named: "Catalog 3") }
        #expect(missing?.message == "the bundle has no version 'Catalog 3' (it has: Catalog, Catalog 2, Catalog 10)")
    }
}
