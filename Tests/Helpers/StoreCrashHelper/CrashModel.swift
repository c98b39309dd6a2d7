import Strata

/// The model of the crash-safety test's store.
enum CrashModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Counter") { AttributeDescription("value", .integer64, defaultValue: 0) }
            EntityDescription("Item") { AttributeDescription("index", .integer64) }
            EntityDescription("Filler") { AttributeDescription("text", .string) }
        }
    }
}
