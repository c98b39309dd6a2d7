import Foundation
import Strata
import Testing

/// Validation as an API, as Core Data's (issue 30, item 9): `validateForInsert()`,
/// `validateForUpdate()`, `validateForDelete()` callable before any save and throwing every
/// problem; `validateValue(_:forKey:)` for one value, overridable per key (Core Data's
/// `validate<Key>:error:`) — and the save runs a subclass's checks too.
@Suite struct ValidationAPITests {
    /// A product whose own rule, beyond the model's, is that a price under 1 is replaced by 1
    /// when asked for a single value, and that `discount` may not exceed `price`.
    final class Product: ManagedObject {
        override func validateValue(_ value: inout AttributeValue?, forKey key: String) throws {
            try super.validateValue(&value, forKey: key)
            if key == "price", case .double(let price)? = value, price < 1 { value = .double(1) }
        }

        override func validateForInsert() throws {
            try withDiscountRule { try super.validateForInsert() }
        }

        override func validateForUpdate() throws {
            try withDiscountRule { try super.validateForUpdate() }
        }

        /// The model's problems (`super`'s) and this class's own, thrown together.
        private func withDiscountRule(_ modelRules: () throws -> Void) throws {
            var problems: [ValidationError] = []
            do { try modelRules() } catch let error as ValidationError { problems.append(error) }
            let price = try value(forKey: "price") as? Double ?? 0
            let discount = try value(forKey: "discount") as? Double ?? 0
            if discount > price {
                problems.append(ValidationError(.valueTooLarge, entity: entity.name, key: "discount", objectID: objectID, "the discount exceeds the price"))
            }
            if let error = ValidationError.combining(problems) { throw error }
        }
    }

    static func model() throws -> ManagedObjectModel {
        var name = AttributeDescription(name: "name", type: .string)
        name.minimumLength = 2
        return try ManagedObjectModel {
            EntityDescription(name: "Product", managedObjectClass: Product.self, attributes: [
                name, AttributeDescription(name: "price", type: .double), AttributeDescription(name: "discount", type: .double, isOptional: true),
            ], relationships: [RelationshipDescription(name: "tags", destination: "Label", inverse: "product", isToMany: true, deleteRule: .deny)])
            EntityDescription("Label") {
                AttributeDescription("text", .string)
                RelationshipDescription("product", toOne: "Product", inverse: "tags")
            }
        }
    }

    @Test func validateForInsertThrowsEveryProblemBeforeAnySave() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        try await backgroundContext(coordinator).perform { context in
            let product = try #require(try context.insertNewObject(forEntityName: "Product") as? Product)
            try product.setValue("X", forKey: "name")  // too short
            try product.setValue(5.0, forKey: "price")
            try product.setValue(9.0, forKey: "discount")  // the subclass's rule
            let error = try #require(throws: ValidationError.self) { try product.validateForInsert() }
            #expect(error.code == .multipleErrors)
            #expect(Set(error.errors.compactMap(\.key)) == ["name", "discount"])
            // The save runs the same checks, the subclass's included, and saves nothing.
            let saved = try #require(throws: ValidationError.self) { try context.save() }
            #expect(Set(saved.errors.compactMap(\.key)) == ["name", "discount"])
            try product.setValue("Xylophone", forKey: "name")
            try product.setValue(2.0, forKey: "discount")
            try product.validateForInsert()
            try context.save()
        }
    }

    @Test func validateValueChecksOneValueAndMayReplaceIt() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        try await backgroundContext(coordinator).perform { context in
            let product = try #require(try context.insertNewObject(forEntityName: "Product") as? Product)
            var price: AttributeValue? = .double(0.25)
            try product.validateValue(&price, forKey: "price")
            #expect(price == .double(1), "the subclass's validate<Key> replaced it")
            var name: AttributeValue? = .string("A")
            let short = try #require(throws: ValidationError.self) { try product.validateValue(&name, forKey: "name") }
            #expect(short.code == .tooShort)
            var missing: AttributeValue? = nil
            #expect(throws: ValidationError.self) { try product.validateValue(&missing, forKey: "name") }
            var any: AttributeValue? = .string("x")
            let unknown = try #require(throws: ValidationError.self) { try product.validateValue(&any, forKey: "colour") }
            #expect(unknown.code == .unknownKey)
        }
    }

    @Test func validateForDeleteHonoursTheDenyRule() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        try await backgroundContext(coordinator).perform { context in
            let product = try context.insertNewObject(forEntityName: "Product")
            try product.setValue("Kazoo", forKey: "name")
            try product.setValue(3.0, forKey: "price")
            let label = try context.insertNewObject(forEntityName: "Label")
            try label.setValue("new", forKey: "text")
            try label.setValue(product, forKey: "product")
            try context.save()
            context.delete(product)
            let denied = try #require(throws: ValidationError.self) { try product.validateForDelete() }
            #expect(denied.code == .deleteDenied && denied.key == "tags")
            context.delete(label)
            try product.validateForDelete()
        }
    }
}
