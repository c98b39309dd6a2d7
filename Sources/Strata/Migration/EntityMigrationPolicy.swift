
/// Code that takes part in migrating an entity's objects, as Core Data's
/// `NSEntityMigrationPolicy`: before the first object, for each object, after the last.
///
/// Objects stream through a migration a chunk at a time; a policy that keeps state across
/// objects (to relate objects it creates, say) holds it in memory for the whole entity.
///
/// A mapping model read from Core Data's files (`.xcmappingmodel`, `.cdm`) names its policies
/// by class name; register each type under that name with ``MigrationPolicyRegistry``.
public protocol EntityMigrationPolicy: Sendable {
    /// Called before the first object of the mapping.
    func beginEntityMapping(_ mapping: EntityMapping, in migration: MigrationSession) throws

    /// Makes the destination object for a source object, or `nil` to drop it. The default makes
    /// it with the mapping's property mappings (``MigrationSession/standardDestination(for:mapping:)``).
    func createDestinationInstance(
        for source: MigrationObject, mapping: EntityMapping, in migration: MigrationSession
    ) throws -> MigrationObject?

    /// Called after the last object of the mapping.
    func endEntityMapping(_ mapping: EntityMapping, in migration: MigrationSession) throws

    /// Answers `FUNCTION($entityPolicy, "selector", arguments…)` in the mapping's value
    /// expressions, as Core Data sends the selector to the `NSEntityMigrationPolicy` object:
    /// `selector` is the selector's name as written (`"fullNameFor:"`), `source` the object
    /// being migrated. The default throws: a policy answers the functions its mapping uses.
    ///
    /// - Returns: The destination attribute's value; `nil` for none.
    func evaluateFunction(
        _ selector: String, arguments: [MappingFunctionArgument], source: MigrationObject, in migration: MigrationSession
    ) throws -> AttributeValue?
}

extension EntityMigrationPolicy {
    public func beginEntityMapping(_ mapping: EntityMapping, in migration: MigrationSession) throws {}

    public func createDestinationInstance(
        for source: MigrationObject, mapping: EntityMapping, in migration: MigrationSession
    ) throws -> MigrationObject? {
        try migration.standardDestination(for: source, mapping: mapping)
    }

    public func endEntityMapping(_ mapping: EntityMapping, in migration: MigrationSession) throws {}

    public func evaluateFunction(
        _ selector: String, arguments: [MappingFunctionArgument], source: MigrationObject, in migration: MigrationSession
    ) throws -> AttributeValue? {
        throw MigrationError(
            .invalidMapping,
            "the policy \(type(of: self)) does not answer FUNCTION($entityPolicy, \"\(selector)\", …): implement "
                + "evaluateFunction(_:arguments:source:in:) for it")
    }
}
