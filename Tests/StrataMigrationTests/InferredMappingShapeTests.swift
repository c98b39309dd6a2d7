import Foundation
import Strata
import Testing

/// The shape of an inferred mapping model, as Core Data's `NSMappingModel.inferredMappingModel(
/// forSourceModel:destinationModel:)` gives it (issue 30, item 12): entity mappings named
/// `IEM_Copy_<entity>`, `IEM_Transform_<entity>`, `IEM_Add_<entity>`, `IEM_Remove_<entity>`,
/// and an attribute mapping for every destination attribute — a new one without a value, so
/// that it takes its default.
@Suite struct InferredMappingShapeTests {
    @Test func entityMappingsAreNamedAndEveryAttributeIsMapped() throws {
        let old = try ManagedObjectModel {
            EntityDescription("Department") { AttributeDescription("name", .string) }
            EntityDescription("Employee") { AttributeDescription("name", .string) }
            EntityDescription("Badge") { AttributeDescription("code", .string) }
        }
        let new = try ManagedObjectModel {
            EntityDescription("Department") { AttributeDescription("name", .string) }
            EntityDescription("Employee") {
                AttributeDescription("name", .string)
                AttributeDescription("level", .integer16, defaultValue: 1)
            }
            EntityDescription("Office") { AttributeDescription("city", .string, optional: true) }
        }
        let mapping = try MappingModel.inferred(from: old, to: new)
        #expect(Set(mapping.entityMappings.map(\.name)) == ["IEM_Copy_Department", "IEM_Transform_Employee", "IEM_Add_Office", "IEM_Remove_Badge"])
        let employee = try #require(mapping.mapping(forDestination: "Employee"))
        #expect(employee.attributeMappings.map(\.name).sorted() == ["level", "name"])
        let level = try #require(employee.attributeMappings.first { $0.name == "level" })
        guard case .constant(nil) = level.value else {
            Issue.record("a new attribute maps to no value (its default), not \(level.value)")
            return
        }
    }

    /// The new attribute's mapping without a value takes its default when a store migrates,
    /// on every store type (the fast row path and SQL alike).
    @Test(arguments: MigrationFixtures.storeKinds)
    func aNewAttributeTakesItsDefault(_ kind: String) async throws {
        let old = try ManagedObjectModel { EntityDescription("Employee") { AttributeDescription("name", .string) } }
        let new = try ManagedObjectModel {
            EntityDescription("Employee") {
                AttributeDescription("name", .string)
                AttributeDescription("level", .integer16, defaultValue: 3)
            }
        }
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Staff", kind, in: directory)
        try await MigrationFixtures.withStore(at: url, model: old) { context in
            try context.insertNewObject(forEntityName: "Employee").setValue("Ada", forKey: "name")
        }
        let bundle = try ModelBundle(name: "Staff", versions: [("Staff", old), ("Staff 2", new)])
        try await MigrationPlan(bundle: bundle).migrateStore(at: url, type: MigrationFixtures.storeType(of: url))
        let levels = try await MigrationFixtures.withStore(at: url, model: new) { context in
            try context.objects("Employee", sortedBy: "name").map { try $0.value(forKey: "level") as? Int16 }
        }
        #expect(levels == [3])
    }
}
