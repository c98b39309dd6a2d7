import Foundation
import Strata
import Testing

/// The model API as Core Data's (issue 30, item 12): `NSRelationshipDescription.isToMany` is
/// "false if maxCount is 1, otherwise true" (its documentation); an `NSEntityDescription` has a
/// `versionHash` before it is part of a model, which follows its `versionHashModifier`.
@Suite struct ModelAPITests {
    @Test func aRelationshipIsToManyWhenItsMaximumIsNotOne() {
        var relationship = RelationshipDescription(name: "items", destination: "Item", isToMany: true)
        #expect(relationship.isToMany && relationship.maxCount == 0, "0: unbounded")
        relationship.maxCount = 1
        #expect(!relationship.isToMany)
        relationship.maxCount = 5
        #expect(relationship.isToMany)
        relationship.isToMany = false
        #expect(relationship.maxCount == 1)
        relationship.isToMany = true
        #expect(relationship.maxCount == 0)
        #expect(RelationshipDescription("owner", toOne: "Item").maxCount == 1)
        #expect(!RelationshipDescription("one", toMany: "Item", maxCount: 1).isToMany, "a maximum of 1 is a to-one")
        #expect(RelationshipDescription("few", toMany: "Item", maxCount: 3).isToMany)
    }

    @Test func anEntityHasItsVersionHashBeforeAModelAndAfterAChange() throws {
        let alone = EntityDescription("Note") {
            AttributeDescription("text", .string)
            RelationshipDescription("next", toOne: "Note", inverse: "next")
        }
        #expect(alone.versionHash.count == 32)
        let model = try ManagedObjectModel { alone }
        let inModel = try #require(model.entitiesByName["Note"])
        #expect(alone.versionHash == inModel.versionHash, "the model resolves the same hash")
        #expect(alone.propertyVersionHashes == inModel.propertyVersionHashes)

        var modified = alone
        modified.versionHashModifier = "2"
        #expect(modified.versionHash != alone.versionHash)
        var changedInModel = inModel
        changedInModel.versionHashModifier = "2"
        #expect(changedInModel.versionHash == modified.versionHash, "a change to an entity of a model reaches its hash")
        #expect(changedInModel.versionHash == (try ManagedObjectModel { modified }).entitiesByName["Note"]?.versionHash)
    }

    @Test func aSubentityTakenFromAModelKeepsItsParentsPart() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Shape") { AttributeDescription("name", .string) }
            EntityDescription("Circle", superentity: "Shape") { AttributeDescription("radius", .double) }
        }
        var circle = try #require(model.entitiesByName["Circle"])
        circle.attributes.append(AttributeDescription("area", .double))
        let shape = try #require(model.entitiesByName["Shape"])
        let rebuilt = try ManagedObjectModel {
            shape
            circle
        }
        #expect(circle.versionHash == rebuilt.entitiesByName["Circle"]?.versionHash)
        #expect(circle.propertyVersionHashes.keys.sorted() == ["area", "name", "radius"])
    }
}
