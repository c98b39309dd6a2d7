import Foundation
import Strata
import Testing

/// Xcode mapping models of our own, one entity mapping of each kind Core Data has (add,
/// remove, copy, transform, custom with a policy), with the value expressions Xcode's editor
/// writes (`$source` key paths, `now()`, `FUNCTION` on values, on `$manager` for relationships
/// and on `$entityPolicy`), migrating a store of every type (issue 29, §2; Core Data's
/// `NSEntityMapping`, `NSPropertyMapping` and `NSEntityMigrationPolicy` documentation).
@Suite struct XcodeMappingModelTests {
    static let policyName = "ShopApp.TicketPolicy"

    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person") {
                AttributeDescription("firstName", .string)
                AttributeDescription("lastName", .string)
                AttributeDescription("age", .integer16)
                AttributeDescription("phone", .string, optional: true)
                RelationshipDescription("employer", toOne: "Company", inverse: "staff", optional: true)
            }
            EntityDescription("Company") {
                AttributeDescription("name", .string)
                RelationshipDescription("staff", toMany: "Person", inverse: "employer")
            }
            EntityDescription("Legacy") { AttributeDescription("code", .string) }
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
    }

    static func v2() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Contact") {
                AttributeDescription("fullName", .string)
                AttributeDescription("shout", .string)
                AttributeDescription("age", .integer64)
                AttributeDescription("phone", .integer64, optional: true)
                AttributeDescription("createdAt", .date)
                AttributeDescription("ticket", .string)
                RelationshipDescription("company", toOne: "Company", inverse: "contacts", optional: true)
            }
            EntityDescription("Company") {
                AttributeDescription("name", .string)
                RelationshipDescription("contacts", toMany: "Contact", inverse: "company")
            }
            EntityDescription("Note") { AttributeDescription("text", .string) }
            EntityDescription("Tag") { AttributeDescription("label", .string, optional: true) }
        }
    }

    /// The mapping model, as Xcode would save it for the two versions of `Shop.xcdatamodeld`.
    static func writeMapping(to url: URL) throws {
        let e = { (format: String) in try ValueExpression(format: format) }
        try XcodeMappingWriter(
            sourceModelPath: "Shop/Shop.xcdatamodeld/Shop 1.xcdatamodel", destinationModelPath: "Shop/Shop.xcdatamodeld/Shop 2.xcdatamodel",
            entities: [
                .init(
                    source: "Person", destination: "Contact", policy: policyName,
                    attributes: [
                        ("fullName", try e(#"FUNCTION(FUNCTION($source.firstName, "stringByAppendingString:", " "), "stringByAppendingString:", $source.lastName)"#)),
                        ("shout", try e(#"FUNCTION($source.lastName, "uppercaseString")"#)),
                        ("age", try e("$source.age")),
                        ("phone", try e(#"FUNCTION($source.phone, "longLongValue")"#)),
                        ("createdAt", try e("now()")),
                        ("ticket", try e(#"FUNCTION($entityPolicy, "ticketFor:", $source)"#)),
                    ],
                    relationships: [
                        ("company", try e(#"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "CompanyToCompany", $source.employer)"#))
                    ]),
                .init(
                    source: "Company", destination: "Company", attributes: [("name", nil)],
                    relationships: [("contacts", try e(#"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "staff", $source.staff)"#))]),
                .init(source: "Note", destination: "Note", attributes: [("text", nil)]),
                .init(destination: "Tag", attributes: [("label", nil)]),
                .init(source: "Legacy"),
            ]
        ).write(to: url)
    }

    @Test(arguments: MigrationFixtures.storeKinds)
    func everyKindOfEntityMappingMigrates(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Shop", kind, in: directory)
        let bundle = try ModelBundle(name: "Shop", versions: [("Shop 1", try Self.v1()), ("Shop 2", try Self.v2())])
        try await MigrationFixtures.withStore(at: url, model: bundle.versions[0].model) { context in
            let acme = try context.insertNewObject(forEntityName: "Company")
            try acme.setValue("Acme", forKey: "name")
            for (first, last, age, phone) in [("Ada", "Lovelace", 36, "555 0100"), ("Alan", "Turing", 41, nil)] {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValue(first, forKey: "firstName")
                try person.setValue(last, forKey: "lastName")
                try person.setValue(age, forKey: "age")
                try person.setValue(phone, forKey: "phone")
                if first == "Ada" { try person.setValue(acme, forKey: "employer") }
            }
            try context.insertNewObject(forEntityName: "Legacy").setValue("old", forKey: "code")
            try context.insertNewObject(forEntityName: "Note").setValue("kept", forKey: "text")
        }
        let mapping = directory.appendingPathComponent("Shop1to2.xcmappingmodel")
        try Self.writeMapping(to: mapping)

        var plan = MigrationPlan(bundle: bundle)
        let started = Date()
        let stage = try plan.addMappingModel(at: mapping, policies: [Self.policyName: { TicketPolicy() }])
        #expect(stage.mapping?.entityMappings.map(\.kind) == [.custom, .transform, .transform, .add, .remove])
        try await plan.migrateStore(at: url, type: MigrationFixtures.storeType(of: url))

        let result = try await MigrationFixtures.withStore(at: url, model: bundle.versions[1].model) { context in
            let contacts = try context.objects("Contact", sortedBy: "fullName").map { contact in
                [
                    "\(try contact.value(forKey: "fullName") ?? "-")", "\(try contact.value(forKey: "shout") ?? "-")",
                    "\(try contact.value(forKey: "age") ?? "-")", "\(try contact.value(forKey: "phone") ?? "nil")",
                    "\(try contact.value(forKey: "ticket") ?? "-")",
                    "\(try (contact.value(forKey: "company") as? ManagedObject)?.value(forKey: "name") ?? "none")",
                ].joined(separator: "|")
            }
            let dates = try context.objects("Contact", sortedBy: "fullName").compactMap { try $0.value(forKey: "createdAt") as? Date }
            let staff = try context.objects("Company", sortedBy: "name").map { company in
                try (company.value(forKey: "contacts") as? Set<ManagedObject> ?? []).map { try $0.value(forKey: "fullName") as? String ?? "" }.sorted()
            }
            let notes = try context.objects("Note", sortedBy: "text").map { try $0.value(forKey: "text") as? String ?? "" }
            return (contacts, dates, staff, notes, try context.objects("Tag", sortedBy: "label").count)
        }
        #expect(result.0 == ["Ada Lovelace|LOVELACE|36|555|T-Lovelace|Acme", "Alan Turing|TURING|41|nil|T-Turing|none"])
        #expect(result.1.count == 2 && result.1.allSatisfy { $0 >= started.addingTimeInterval(-1) && $0 <= Date() })
        #expect(result.2 == [["Ada Lovelace"]])
        #expect(result.3 == ["kept"])
        #expect(result.4 == 0)
    }

    /// A mapping model that names what the models lack, an expression a migration cannot
    /// evaluate, or a policy function without a policy, lists every problem.
    @Test func aMappingThatDoesNotFitListsEveryProblem() throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mapping = directory.appendingPathComponent("Bad.xcmappingmodel")
        try XcodeMappingWriter(
            sourceModelPath: "Shop 1.xcdatamodel", destinationModelPath: "Shop 2.xcdatamodel",
            entities: [
                .init(
                    source: "Person", destination: "Contact",
                    attributes: [
                        ("nickname", nil), ("fullName", try ValueExpression(format: "$source.employer.name")),
                        ("ticket", try ValueExpression(format: #"FUNCTION($entityPolicy, "ticketFor:", $source)"#)),
                        ("shout", try ValueExpression(format: #"FUNCTION($source.lastName, "reversed")"#)),
                    ]),
                .init(source: "Persn", destination: "Contact"),
            ]
        ).write(to: mapping)
        let error = try #require(throws: MigrationError.self) {
            try MappingModel(contentsOf: mapping, source: try Self.v1(), destination: try Self.v2())
        }
        #expect(error.code == .invalidMapping)
        #expect(error.problems.count == 5, "\(error.problems)")
        #expect(error.problems.contains { $0.contains("Contact has no attribute 'nickname'") })
        #expect(error.problems.contains { $0.contains("employer") && $0.contains("related object") })
        #expect(error.problems.contains { $0.contains("names no policy class") })
        #expect(error.problems.contains { $0.contains("reversed") })
        #expect(error.problems.contains { $0.contains("no entity 'Persn'") })
    }
}

/// Answers `FUNCTION($entityPolicy, "ticketFor:", $source)`: a ticket from the person's last name.
struct TicketPolicy: EntityMigrationPolicy {
    func evaluateFunction(
        _ selector: String, arguments: [MappingFunctionArgument], source: MigrationObject, in migration: MigrationSession
    ) throws -> AttributeValue? {
        guard selector == "ticketFor:", case .object(let person)? = arguments.first, case .string(let last)? = person["lastName"] else {
            throw MigrationError(.invalidMapping, "unexpected \(selector)")
        }
        return .string("T-\(last)")
    }
}
