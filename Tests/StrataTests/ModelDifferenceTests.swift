import Strata
import Testing

@Suite struct ModelDifferenceTests {
    @Test func renamesAreFoundThroughRenamingIdentifiers() throws {
        let old = try ManagedObjectModel {
            EntityDescription("Writer") {
                AttributeDescription("fullName", .string)
                AttributeDescription("born", .integer16)
            }
        }
        var author = EntityDescription("Author") {
            AttributeDescription("born", .integer32, optional: true)
        }
        author.renamingIdentifier = "Writer"
        author.attributes.append(AttributeDescription(name: "name", type: .string, renamingIdentifier: "fullName"))
        let new = try ManagedObjectModel(entities: [author])
        let difference = ModelDifference(from: old, to: new)
        #expect(difference.changes.map(\.description) == [
            "Author: entityRenamed (from Writer)",
            "Author.born: typeChanged (Integer 16 → Integer 32)",
            "Author.born: optionalityChanged (now optional)",
            "Author.name: propertyRenamed (from fullName)",
            "Author: versionHashChanged",
        ])
        #expect(difference.entitiesWithChangedHashes == ["Author"])
    }

    @Test func relationshipChangesAreNamed() throws {
        let old = try ManagedObjectModel {
            EntityDescription("Book") { RelationshipDescription("chapters", toMany: "Chapter", inverse: "book") }
            EntityDescription("Chapter") { RelationshipDescription("book", toOne: "Book", inverse: "chapters") }
        }
        let new = try ManagedObjectModel {
            EntityDescription("Book") {
                RelationshipDescription("chapters", toMany: "Chapter", inverse: "book", deleteRule: .cascade, ordered: true)
            }
            EntityDescription("Chapter") { RelationshipDescription("book", toOne: "Book", inverse: "chapters") }
        }
        #expect(ModelDifference(from: old, to: new).changes.map(\.description) == [
            "Book.chapters: orderingChanged (now ordered)",
            "Book.chapters: deleteRuleChanged (Nullify → Cascade)",
            "Book: versionHashChanged",
        ])
    }

    @Test func propertiesMovingUpTheHierarchyAreKept() throws {
        let old = try ManagedObjectModel {
            EntityDescription("Region") { AttributeDescription("code", .integer16) }
            EntityDescription("Country", superentity: "Region")
        }
        let new = try ManagedObjectModel {
            EntityDescription("Country") { AttributeDescription("code", .integer16) }
        }
        #expect(ModelDifference(from: old, to: new).changes.map(\.description) == [
            "Country: parentChanged (Region → none)",
            "Country: versionHashChanged",
            "Region: entityRemoved",
        ])
    }
}
