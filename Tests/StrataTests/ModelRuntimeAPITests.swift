import Foundation
import Strata
import Testing

/// The model at run time as Core Data code reads and builds it (issue 33): an entity's
/// `superentity`, `subentities`, `properties` and `propertiesByName`, a relationship's
/// `destinationEntity` and `inverseRelationship`, all descriptions (Core Data's
/// `NSEntityDescription` and `NSRelationshipDescription` references); a model built with the
/// mutable API (`NSManagedObjectModel()`, `entities =`, `subentities =`); and
/// `NSManagedObjectModel(byMerging:)` / `mergedModel(from:)`, which return `nil` for models
/// that conflict.
@Suite struct ModelRuntimeAPITests {
    static func shapesModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Drawing") {
                AttributeDescription("title", .string)
                RelationshipDescription("shapes", toMany: "Shape", inverse: "drawing", deleteRule: .cascade)
            }
            EntityDescription("Shape", isAbstract: true) {
                AttributeDescription("name", .string)
                RelationshipDescription("drawing", toOne: "Drawing", inverse: "shapes")
            }
            EntityDescription("Circle", superentity: "Shape") { AttributeDescription("radius", .double) }
            EntityDescription("Square", superentity: "Shape") { AttributeDescription("side", .double) }
        }
    }

    @Test func descriptionsFromAModelAnswerWithDescriptions() throws {
        let model = try Self.shapesModel()
        let circle = try #require(model.entitiesByName["Circle"])
        let shape = try #require(circle.superentity)
        #expect(shape.name == "Shape")
        #expect(shape.superentity == nil, "a root entity has none (Core Data: nil)")
        #expect(shape.subentities.map(\.name).sorted() == ["Circle", "Square"])
        #expect(shape.subentitiesByName["Square"]?.attributesByName["side"] != nil)
        #expect(circle.isKindOf(entity: shape) && circle.isKindOf(entity: circle))
        #expect(!shape.isKindOf(entity: circle))

        let drawing = try #require(circle.relationshipsByName["drawing"]?.destinationEntity)
        #expect(drawing.name == "Drawing")
        let shapes = try #require(drawing.relationshipsByName["shapes"])
        #expect(shapes.destinationEntity?.name == "Shape")
        #expect(shapes.inverseRelationship?.name == "drawing")
        #expect(shapes.inverseRelationship?.destinationEntity?.name == "Drawing", "a chain of descriptions")
        #expect(drawing.relationships.first?.destinationEntity?.subentities.count == 2, "the entity's own list too")
    }

    @Test func propertiesAreListedAsCoreDataListsThem() throws {
        let circle = try #require(try Self.shapesModel().entitiesByName["Circle"])
        #expect(circle.properties.map(\.name) == ["name", "radius", "drawing"], "inherited first; attributes, then relationships")
        #expect(circle.propertiesByName["radius"] is AttributeDescription)
        let drawing = try #require(circle.propertiesByName["drawing"] as? RelationshipDescription)
        #expect(!drawing.isToMany)

        // A list read, added to and set back keeps what the entity inherits its parent's.
        var changed = circle
        var attribute = AttributeDescription()
        attribute.name = "area"
        attribute.attributeType = .doubleAttributeType
        changed.properties = changed.properties + [attribute]
        #expect(changed.attributes.map(\.name) == ["radius", "area"])
        #expect(changed.relationships.isEmpty)
        let original = try Self.shapesModel()
        let rebuilt = try ManagedObjectModel(entities: original.entities.map { $0.name == "Circle" ? changed : $0 })
        #expect(rebuilt.entitiesByName["Circle"]?.attributesByName.keys.sorted() == ["area", "name", "radius"])
    }

    @Test func anEntityKeptAfterItsModelStillAnswers() throws {
        let circle = try #require(try Self.shapesModel().entitiesByName["Circle"])
        #expect(circle.superentity?.name == "Shape")
        #expect(circle.relationshipsByName["drawing"]?.destinationEntity?.attributesByName["title"] != nil)
    }

    @Test func aDescriptionFromAModelEqualsTheSameMadeInCode() throws {
        let declared = RelationshipDescription("drawing", toOne: "Drawing", inverse: "shapes")
        let fromModel = try #require(try Self.shapesModel().entitiesByName["Shape"]?.relationshipsByName["drawing"])
        #expect(fromModel == declared, "the link to the model takes no part in equality")
        #expect(declared.destinationEntity == nil, "outside a model, only the name is known")
    }

    /// Core Data's mutable API, as code that builds its model in code writes it.
    @Test func aModelBuiltWithCoreDatasMutableAPIWorks() async throws {
        var drawing = EntityDescription()
        drawing.name = "Drawing"
        var shape = EntityDescription()
        shape.name = "Shape"
        shape.isAbstract = true
        var circle = EntityDescription()
        circle.name = "Circle"

        var title = AttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.isOptional = false
        var radius = AttributeDescription()
        radius.name = "radius"
        radius.attributeType = .doubleAttributeType
        #expect(radius.isOptional, "optional until told otherwise, as Core Data's")

        var shapes = RelationshipDescription()
        shapes.name = "shapes"
        shapes.destinationEntity = shape
        shapes.minCount = 0
        shapes.maxCount = 0
        shapes.deleteRule = .cascadeDeleteRule
        var owner = RelationshipDescription()
        owner.name = "drawing"
        owner.destinationEntity = drawing
        owner.maxCount = 1
        shapes.inverseRelationship = owner
        owner.inverseRelationship = shapes

        drawing.properties = [title, shapes]
        shape.properties = [owner]
        circle.properties = [radius]
        shape.subentities = [circle]

        var model = ManagedObjectModel()
        #expect(model.entities.isEmpty && model.validationError == nil)
        model.entities = [drawing, shape, circle]
        #expect(model.validationError == nil)
        #expect(model.entitiesByName["Circle"]?.superentity?.name == "Shape", "subentities made the parent")
        #expect(model.entitiesByName["Shape"]?.subentities.map(\.name) == ["Circle"])

        let coordinator = try await makeCoordinator(model, .inMemory)
        let names = try await backgroundContext(coordinator).perform { context in
            let picture = try context.insertNewObject(forEntityName: "Drawing")
            try picture.setValue("Sun", forKey: "title")
            let sun = try context.insertNewObject(forEntityName: "Circle")
            try sun.setValue(3.0, forKey: "radius")
            try sun.setValue(picture, forKey: "drawing")
            try context.save()
            let found = try context.fetch(FetchRequest<ManagedObject>(entityName: "Shape"))
            return found.map(\.entity.name)
        }
        #expect(names == ["Circle"], "a fetch of the parent finds the child's objects")
    }

    @Test func aModelWhoseEntitiesDoNotWorkIsRefusedByTheCoordinator() async throws {
        var model = try Self.shapesModel()
        var circle = try #require(model.entitiesByName["Circle"])
        circle.superentityName = "Ellipse"
        model.entities = model.entities.map { $0.name == "Circle" ? circle : $0 }
        let error = try #require(model.validationError)
        #expect(error.code == .unknownSuperentity && error.entity == "Circle")
        #expect(model.entities.count == 4, "the entities are kept as given")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        await #expect(throws: ModelError.self) { try await coordinator.addPersistentStore(type: .inMemory) }

        var shape = try #require(try Self.shapesModel().entitiesByName["Shape"])
        var square = try #require(try Self.shapesModel().entitiesByName["Square"])
        square.superentityName = nil
        var other = EntityDescription(name: "Other")
        other.subentities = [square]
        shape.subentities = [square]
        var conflicting = ManagedObjectModel()
        conflicting.entities = [shape, other, square]
        #expect(conflicting.validationError?.code == .unknownSuperentity, "two parents claim one child")

        model.entities = try Self.shapesModel().entities
        #expect(model.validationError == nil, "set right again, the model works")
    }

    @Test func modelsMergeAndConflictingOnesDoNot() throws {
        let people = try ManagedObjectModel(
            entities: [
                EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)])
            ], configurations: ["People": ["Person"]])
        var drawings = try Self.shapesModel()
        var drawing = try #require(drawings.entitiesByName["Drawing"])
        drawing.relationships.append(RelationshipDescription(name: "artist", destination: "Person"))
        drawings.entities = drawings.entities.map { $0.name == "Drawing" ? drawing : $0 }
        #expect(drawings.validationError?.code == .unknownDestination, "alone, the artist's entity is missing")

        let merged = try #require(ManagedObjectModel(byMerging: [people, drawings]))
        #expect(merged.entities.map(\.name) == ["Person", "Drawing", "Shape", "Circle", "Square"])
        #expect(merged.entitiesByName["Drawing"]?.relationshipsByName["artist"]?.destinationEntity?.name == "Person")
        #expect(merged.configurations == ["People": ["Person"]])
        #expect(merged.entitiesByName["Shape"]?.subentities.count == 2)

        #expect(ManagedObjectModel(byMerging: [people, people]) == nil, "two entities named Person")
        #expect(ManagedObjectModel(byMerging: nil) == nil)
        #expect(ManagedObjectModel(byMerging: [])?.entities.isEmpty == true)
    }

    /// `mergedModel(from:)` finds the models at the top of a bundle's resources: compiled when
    /// they are there compiled, else the Xcode file a Swift package ships.
    @Test func aBundlesModelsAreFoundAndMerged() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.shapesModel().write(toModelAt: folder.appendingPathComponent("Shapes.xcdatamodel"))
        let people = try ManagedObjectModel(entities: [EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)])])
        let bundle = try ModelBundle(name: "People", versions: [("People", people)])
        try bundle.writeCompiled(to: folder.appendingPathComponent("People.momd"))
        // The same model as an Xcode file beside its compiled form is not a second model.
        try bundle.versions[0].model.write(toModelAt: folder.appendingPathComponent("People.xcdatamodel"))
        try Data("not a model".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        let bundleFolder = try #require(Bundle(path: folder.path))
        let merged = try #require(ManagedObjectModel.mergedModel(from: [bundleFolder]))
        #expect(Set(merged.entities.map(\.name)) == ["Person", "Drawing", "Shape", "Circle", "Square"])

        try Data("damaged".utf8).write(to: folder.appendingPathComponent("Broken.mom"))
        #expect(ManagedObjectModel.mergedModel(from: [bundleFolder]) == nil, "a model that does not read")
        let empty = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        let emptyFolder = try #require(Bundle(path: empty.path))
        #expect(ManagedObjectModel.mergedModel(from: [emptyFolder]) == nil)
    }
}
