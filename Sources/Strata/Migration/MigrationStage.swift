
/// One step of a staged migration: from one version of a model to the next, lightweight
/// (inferred) or custom, with optional code to run before (on the old model) and after (on the
/// new one), as SwiftData's `MigrationStage`.
public struct MigrationStage: Sendable {
    public var fromVersion: String
    public var toVersion: String
    /// The mapping; `nil` for a lightweight stage, whose mapping is inferred.
    public var mapping: MappingModel?
    /// Runs in a context on the store, with the old model, before the stage migrates it; what
    /// it saves is migrated.
    public var willMigrate: (@Sendable (isolated ManagedObjectContext) throws -> Void)?
    /// Runs in a context on the store, with the new model, after the stage.
    public var didMigrate: (@Sendable (isolated ManagedObjectContext) throws -> Void)?

    /// A lightweight stage: the mapping is inferred.
    public static func lightweight(from: String, to: String) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, mapping: nil)
    }

    /// A custom stage.
    public static func custom(
        from: String, to: String, mapping: MappingModel? = nil,
        willMigrate: (@Sendable (isolated ManagedObjectContext) throws -> Void)? = nil,
        didMigrate: (@Sendable (isolated ManagedObjectContext) throws -> Void)? = nil
    ) -> MigrationStage {
        MigrationStage(fromVersion: from, toVersion: to, mapping: mapping, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}
