import Foundation
import Strata
import Testing

@Suite struct ValidationTests {
    static func model() throws -> ManagedObjectModel {
        var code = AttributeDescription(name: "code", type: .string)
        code.regularExpression = "[A-Z]{3}-[0-9]+"
        code.minimumLength = 5
        code.maximumLength = 8
        var stock = AttributeDescription(name: "stock", type: .integer32, defaultValue: 0)
        stock.minimumValue = 0
        stock.maximumValue = 1000
        return try ManagedObjectModel {
            EntityDescription(name: "Item", attributes: [code, stock], relationships: [
                RelationshipDescription(name: "parts", destination: "Part", inverse: "item", isToMany: true, minCount: 1, maxCount: 2),
                RelationshipDescription(name: "supplier", destination: "Part", isOptional: false),
            ])
            EntityDescription("Part") {
                AttributeDescription("name", .string, optional: true)
                RelationshipDescription("item", toOne: "Item", inverse: "parts")
            }
        }
    }

    @Test func aValidObjectSaves() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        try await backgroundContext(coordinator).perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            let part = try context.insertNewObject(forEntityName: "Part")
            try item.setValue("ABC-12", forKey: "code")
            try item.setValue(Set([part]), forKey: "parts")
            try item.setValue(part, forKey: "supplier")
            try context.save()
            #expect(context.hasChanges == false)
        }
    }

    @Test func everyProblemIsReportedAtOnceAndNothingIsSaved() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        try await backgroundContext(coordinator).perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("abc-1", forKey: "code")
            try item.setValue(5000, forKey: "stock")
            let parts = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Part") }
            try item.setValue(Set(parts), forKey: "parts")

            let error = #expect(throws: ValidationError.self) { try context.save() }
            #expect(error?.code == .multipleErrors)
            let problems = Set(error?.errors.map { "\($0.code) \($0.key ?? "")" } ?? [])
            #expect(problems == ["patternMismatch code", "valueTooLarge stock", "tooManyObjects parts", "missingValue supplier"])
            #expect(context.hasChanges == true, "a failed save keeps the context's changes")
            #expect(item.objectID.isTemporaryID)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) == 1)
        }
        let stored = try await backgroundContext(coordinator).perform { context in
            try context.count(for: FetchRequest<ManagedObject>(entityName: "Item"))
        }
        #expect(stored == 0)
    }

    @Test func oneProblemIsItsOwnError() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let error = try await backgroundContext(coordinator).perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            let part = try context.insertNewObject(forEntityName: "Part")
            try item.setValue(Set([part]), forKey: "parts")
            try item.setValue(part, forKey: "supplier")
            return #expect(throws: ValidationError.self) { try context.save() }
        }
        #expect(error?.code == .missingValue)
        #expect(error?.description == "Item.code: a required attribute has no value")
    }

    @Test func lengthsAreChecked() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let codes = try await backgroundContext(coordinator).perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            let part = try context.insertNewObject(forEntityName: "Part")
            try item.setValue(Set([part]), forKey: "parts")
            try item.setValue(part, forKey: "supplier")
            var codes: [String] = []
            for code in ["AB-1", "ABCDEFGHIJ"] {
                try item.setValue(code, forKey: "code")
                do { try context.save() } catch let error as ValidationError {
                    codes += error.errors.isEmpty ? ["\(error.code)"] : error.errors.map { "\($0.code)" }
                }
            }
            return codes
        }
        #expect(codes == ["tooShort", "patternMismatch", "tooLong", "patternMismatch"])
    }
}
