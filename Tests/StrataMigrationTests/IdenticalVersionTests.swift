import Foundation
import Strata
import Testing

/// Versions whose hashes are identical (a step that changed only a default value, an index or
/// a renaming identifier): a store with those hashes is at any of them
/// (`formats/coredata-lightweight-migration.md` §1).
@Suite struct IdenticalVersionTests {
    /// v1 and v3 store objects the same way (v3 only adds a default); v2 adds an attribute.
    static func bundle() throws -> ModelBundle {
        func model(default value: AttributeValue? = nil, extra: Bool = false) throws -> ManagedObjectModel {
            try ManagedObjectModel {
                EntityDescription("Item") {
                    AttributeDescription("name", .string, optional: true, defaultValue: value)
                    if extra { AttributeDescription("size", .integer32, optional: true) }
                }
            }
        }
        return try ModelBundle(
            name: "Items", versions: [("Items", try model()), ("Items 2", try model(extra: true)), ("Items 3", try model(default: "new"))])
    }

    @Test func theVersionAStoreNamesIsTheOneItIsAt() throws {
        let bundle = try Self.bundle()
        #expect(bundle.versions[0].model.entityVersionHashesByName == bundle.versions[2].model.entityVersionHashesByName)
        let written = bundle.versions[0].model.storeMetadata(forConfigurationName: nil)
        #expect(try bundle.version(forStoreMetadata: written).name == "Items")
        #expect(try MigrationPlan(bundle: bundle).stages(forStoreMetadata: written, to: "Items 2").map(\.fromVersion) == ["Items"])
    }

    @Test func withoutANameTheEarliestThatMakesTheMigrationPossibleIsChosen() throws {
        let bundle = try Self.bundle()
        var foreign = bundle.versions[2].model.storeMetadata(forConfigurationName: nil)
        foreign[PersistentStore.modelVersionHistoryKey] = nil  // as Core Data writes it: hashes, no version name
        let plan = MigrationPlan(bundle: bundle)
        // To the version in between: the store is at the first, not "after it".
        #expect(try plan.stages(forStoreMetadata: foreign, to: "Items 2").map { "\($0.fromVersion) → \($0.toVersion)" } == ["Items → Items 2"])
        // To a version it matches: never migrated.
        #expect(try plan.stages(forStoreMetadata: foreign, to: "Items 3").isEmpty)
        #expect(try bundle.version(forStoreMetadata: foreign).name == "Items 3", "the current version, when it matches")
    }
}
