import Strata
import Testing

@Suite struct ModelTests {
    @Test func theDSLBuildsTheLibraryModel() throws {
        let model = try libraryModel()
        #expect(model.entities.map(\.name) == ["Author", "Book", "Chapter", "Tag", "Passport"])
        let book = try #require(model.entity(named: "Book"))
        #expect(book.managedObjectClass == Book.self)
        #expect(book.managedObjectClassName == "Book")
        #expect(book.attributes.map(\.name) == ["title", "pages"])
        #expect(book.attributesByName["pages"]?.defaultValue == .integer32(0))
        #expect(book.attributesByName["title"]?.isOptional == false)
        let chapters = try #require(book.relationshipsByName["chapters"])
        #expect(chapters.isToMany && chapters.isOrdered)
        #expect(chapters.deleteRule == .cascade)
        #expect(chapters.inverseName == "book")
    }

    @Test func subentitiesInheritAndAreListed() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Vehicle", isAbstract: true) {
                AttributeDescription("wheels", .integer16)
                UniquenessConstraint("wheels")
            }
            EntityDescription("Car", superentity: "Vehicle") {
                AttributeDescription("plate", .string)
                FetchIndexDescription("byPlate", "plate", "wheels")
            }
        }
        let vehicle = try #require(model.entity(named: "Vehicle"))
        let car = try #require(model.entity(named: "Car"))
        #expect(vehicle.subentityNames == ["Car"])
        #expect(car.attributes.map(\.name) == ["plate"])
        #expect(Set(car.attributesByName.keys) == ["wheels", "plate"])
        #expect(car.indexes.first?.elements.map(\.propertyName) == ["plate", "wheels"])
        #expect(vehicle.uniquenessConstraints == [["wheels"]])
    }

    @Test func anUnknownDestinationNamesTheEntityAndProperty() {
        #expect(throws: ModelError(.unknownDestination, entity: "Book", property: "author",
                                   "its destination entity 'Writer' is not in the model")) {
            try ManagedObjectModel {
                EntityDescription("Book") { RelationshipDescription("author", toOne: "Writer") }
            }
        }
    }

    @Test func anInverseThatDoesNotPointBackIsRefused() throws {
        let error = #expect(throws: ModelError.self) {
            try ManagedObjectModel {
                EntityDescription("Author") { RelationshipDescription("books", toMany: "Book", inverse: "author") }
                EntityDescription("Book") {
                    RelationshipDescription("author", toOne: "Author", inverse: "editor")
                    RelationshipDescription("editor", toOne: "Author")
                }
            }
        }
        #expect(error?.code == .badInverse)
        #expect(error?.description == "Invalid model (Author.books): its inverse 'Book.author' does not point back to it")
    }

    @Test func aMissingInverseIsRefused() {
        let error = #expect(throws: ModelError.self) {
            try ManagedObjectModel {
                EntityDescription("Author") { RelationshipDescription("books", toMany: "Book", inverse: "writer") }
                EntityDescription("Book")
            }
        }
        #expect(error?.description == "Invalid model (Author.books): its inverse 'writer' is not a relationship of 'Book'")
    }

    @Test func duplicateNamesAreRefused() {
        let entities = #expect(throws: ModelError.self) {
            try ManagedObjectModel { EntityDescription("Book"); EntityDescription("Book") }
        }
        #expect(entities?.code == .duplicateEntity)
        #expect(entities?.entity == "Book")

        let properties = #expect(throws: ModelError.self) {
            try ManagedObjectModel {
                EntityDescription("Base") { AttributeDescription("name", .string) }
                EntityDescription("Derived", superentity: "Base") { AttributeDescription("name", .string) }
            }
        }
        #expect(properties?.code == .duplicateProperty)
        #expect(properties?.entity == "Derived")
        #expect(properties?.property == "name")
    }

    @Test func anInheritanceCycleIsRefused() {
        let error = #expect(throws: ModelError.self) {
            try ManagedObjectModel {
                EntityDescription("A", superentity: "B")
                EntityDescription("B", superentity: "A")
            }
        }
        #expect(error?.code == .inheritanceCycle)
        #expect(error?.description == "Invalid model (A): the entity inherits from itself through 'A'")
    }

    @Test func badRulesAreRefused() {
        let defaultValue = #expect(throws: ModelError.self) {
            try ManagedObjectModel {
                EntityDescription("Book") { AttributeDescription("pages", .integer16, defaultValue: .string("many")) }
            }
        }
        #expect(defaultValue?.description
            == "Invalid model (Book.pages): its default value is a String value, not a Integer 16 one")

        var title = AttributeDescription(name: "title", type: .string)
        title.regularExpression = "[unclosed"
        let pattern = #expect(throws: ModelError.self) {
            try ManagedObjectModel(entities: [EntityDescription(name: "Book", attributes: [title])])
        }
        #expect(pattern?.code == .invalidValue)

        let constraint = #expect(throws: ModelError.self) {
            try ManagedObjectModel { EntityDescription("Book") { UniquenessConstraint("isbn") } }
        }
        #expect(constraint?.code == .unknownProperty)
        #expect(constraint?.property == "isbn")
    }

    @Test func modelsAreValuesThatCompareByContent() throws {
        #expect(try libraryModel() == libraryModel())
        var entities = try libraryModel().entities
        entities[0].attributes.append(AttributeDescription(name: "nickname", type: .string, isOptional: true))
        #expect(try ManagedObjectModel(entities: entities) != libraryModel())
    }
}
