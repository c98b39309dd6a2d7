import Foundation
import Strata
import Testing

/// The model's validation predicates (issue 30, item 9): Core Data's
/// `setValidationPredicates(_:withValidationWarnings:)` on attributes and relationships — each
/// predicate evaluated with `SELF` as the property's value when the object is validated (and
/// saved), a broken one reported with its warning; a `nil` value is left to optionality.
@Suite struct ValidationPredicateTests {
    static func model() throws -> ManagedObjectModel {
        let (positive, longEnough, notTemporary, fewSteps) = (
            try FetchPredicate(format: "SELF > 0"), try FetchPredicate(format: "length >= 3"),
            try FetchPredicate(format: "NOT SELF BEGINSWITH 'tmp'"), try FetchPredicate(format: "@count <= 2")
        )
        return try ManagedObjectModel {
            EntityDescription("Run") {
                AttributeDescription("processID", .integer32, optional: true)
                    .validated(by: positive, warning: "Process ID < 1")
                AttributeDescription("label", .string)
                    .validated(by: longEnough, warning: "Label too short")
                    .validated(by: notTemporary, warning: "Label is temporary")
                RelationshipDescription("steps", toMany: "Step", inverse: "run")
                    .validated(by: fewSteps, warning: "Too many steps")
            }
            EntityDescription("Step") {
                RelationshipDescription("run", toOne: "Run", inverse: "steps")
            }
        }
    }

    @Test func theModelKeepsThePredicatesAndTheirWarnings() throws {
        let run = try #require(try Self.model().entitiesByName["Run"])
        let label = try #require(run.attributes.first { $0.name == "label" })
        #expect(label.validationPredicates.map(\.description) == ["length >= 3", "NOT SELF BEGINSWITH \"tmp\""])
        #expect(label.validationWarnings == ["Label too short", "Label is temporary"])
        var copy = label
        copy.setValidationPredicates([try FetchPredicate(format: "SELF != ''")], withValidationWarnings: [])
        #expect(copy.validationWarnings.count == 1, "a predicate without a warning gets one")
    }

    @Test func aBrokenPredicateFailsTheSaveWithItsWarning() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        try await backgroundContext(coordinator).perform { context in
            let run = try context.insertNewObject(forEntityName: "Run")
            try run.setValue(0, forKey: "processID")
            try run.setValue("tmp", forKey: "label")
            for _ in 0..<3 { try context.insertNewObject(forEntityName: "Step").setValue(run, forKey: "run") }
            let error = try #require(throws: ValidationError.self) { try context.save() }
            let problems = error.code == .multipleErrors ? error.errors : [error]
            #expect(Set(problems.map(\.code)) == [.predicateFailed])
            #expect(Set(problems.map(\.message)) == ["Process ID < 1", "Label is temporary", "Too many steps"])
            #expect(Set(problems.compactMap(\.key)) == ["processID", "label", "steps"])

            try run.setValue(nil, forKey: "processID")  // nil: not checked
            try run.setValue("nightly", forKey: "label")
            let steps = try #require(run.value(forKey: "steps") as? Set<ManagedObject>)
            context.delete(try #require(steps.first))
            try run.validateForInsert()
            try context.save()
        }
    }
}
