import Foundation
import Logging

/// The versions a store migrates through, oldest to newest, and how each step is made: Core
/// Data's staged migration, SwiftData's `SchemaMigrationPlan`.
///
/// By default every step between consecutive versions of the bundle is lightweight; give
/// custom stages for the steps that need them. A store's version is found from its hashes; a
/// store written by an unknown or newer version is refused, never "fixed".
public struct MigrationPlan: Sendable {
    public let bundle: ModelBundle
    /// The custom stages, by their `fromVersion`.
    public var customStages: [MigrationStage]
    /// Whether objects lacking a value a stage makes required get a default instead of failing
    /// the migration (see ``MigrationManager/fillsMissingValues``).
    public var fillsMissingValues = false
    private let logger = Logger(label: "strata.migration")

    public init(bundle: ModelBundle, customStages: [MigrationStage] = []) {
        self.bundle = bundle
        self.customStages = customStages
    }

    /// The stages from the version that wrote a store to `target` (the current version by
    /// default), without migrating: what `strata migrate --dry-run` shows.
    ///
    /// - Throws: ``MigrationError`` with code `.unknownSourceVersion` for a store no version of the
    ///   bundle wrote, or one from a version after `target`.
    public func stages(forStoreMetadata metadata: [String: MetadataValue], to target: String? = nil) throws -> [MigrationStage] {
        let destination = try target.map { try bundle.version(named: $0) } ?? bundle.currentVersion
        let source: ModelBundle.Version
        do {
            source = try bundle.version(forStoreMetadata: metadata, migratingTo: destination)
        } catch let error as PersistenceError {
            throw MigrationError(.unknownSourceVersion, error.message)
        }
        guard let from = bundle.versions.firstIndex(of: source), let to = bundle.versions.firstIndex(of: destination) else { return [] }
        guard from <= to else {
            throw MigrationError(
                .unknownSourceVersion, "the store is at version '\(source.name)', after '\(destination.name)': Strata does not migrate backwards")
        }
        return (from..<to).map { index in
            let (old, new) = (bundle.versions[index].name, bundle.versions[index + 1].name)
            return customStages.first { $0.fromVersion == old && $0.toVersion == new } ?? .lightweight(from: old, to: new)
        }
    }

    /// Migrates the store at `url` (a binary or SQLite file, or a PostgreSQL store) through every
    /// stage to `target` (the current version by default). When a stage fails, the store is put
    /// back as it was before the first one (a store whose data a later stage refuses is not left
    /// half-way).
    ///
    /// A binary store is rewritten stage by stage: a crash leaves it at the last completed
    /// stage's version, which the next run continues from. A SQLite store migrates in SQL, every
    /// stage in one transaction, so a crash leaves it as it was; a stage with `willMigrate` or
    /// `didMigrate` code, which runs in a context on the store, ends that transaction, so a
    /// failure after such a stage leaves the store at the last completed stage, as does a stage
    /// whose mapping needs objects (expressions, closures, policies), which copies rows into a
    /// new file swapped in when whole. A PostgreSQL store (`StrataPostgres`) migrates as a SQLite
    /// store does, each run of stages in one transaction of the database, every stage included.
    ///
    /// - Parameters:
    ///   - url: The store to migrate.
    ///   - type: The store's type; by default read from the file (SQLite or binary). Give it
    ///     for a store that is not a file, such as `.postgreSQL`.
    ///   - target: The name of the version to migrate to; the bundle's current one by default.
    ///   - backup: Where to keep a copy of the store as it was before the first stage (files only).
    ///   - inferMappings: Whether a step with no custom stage may be inferred (Core Data's
    ///     `NSInferMappingModelAutomaticallyOption`); off, such a step is an error.
    ///   - progress: Called as the migration goes on, with the stage, the entity and the
    ///     objects done (``MigrationProgress``).
    /// - Returns: Each stage's report: what it filled in, if anything.
    @discardableResult
    public func migrateStore(
        at url: URL, type: StoreType? = nil, to target: String? = nil, backup: URL? = nil, inferMappings: Bool = true,
        progress: @escaping @Sendable (MigrationProgress) -> Void = { _ in }
    ) async throws -> [MigrationReport] {
        let type = type ?? StoreFileMigration.storeType(ofFileAt: url)
        guard StoreFileMigration.canMigrate(type) else {
            throw PersistenceError(.incompatibleStore, "Strata migrates binary, SQLite and atomic (XML) store files, and stores of the types registered from its package; not \(type)")
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        let stages = try stages(forStoreMetadata: metadata, to: target)
        if type != .binary {
            return try await migrateInPlace(url, type: type, through: stages, backup: backup, inferMappings: inferMappings, progress: progress)
        }
        guard stages.count > 1 else { return try await migrate(url, through: stages, backup: backup, inferMappings: inferMappings, progress: progress) }
        // A copy beside the store, put back if a later stage fails.
        let original = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).before-migration")
        try? FileManager.default.removeItem(at: original)
        do {
            try FileManager.default.copyItem(at: url, to: original)
        } catch {
            throw StoreError(.writeFailed, file: original, "cannot keep a copy of the store before migrating it: \(error.localizedDescription)")
        }
        do {
            let reports = try await migrate(url, through: stages, backup: backup, inferMappings: inferMappings, progress: progress)
            try? FileManager.default.removeItem(at: original)
            return reports
        } catch {
            // rename(2) is atomic; FileManager.replaceItemAt, on Linux, was seen to leave no store
            // at all (StagedDataRuleTests).
            if rename(original.path, url.path) != 0 {
                logger.error("could not put the store back as it was", metadata: ["store": "\(url.path)", "copy": "\(original.path)"])
            }
            throw error
        }
    }

    /// The model step a stage takes: its models and its mapping.
    private func step(for stage: MigrationStage, inferMappings: Bool) throws -> MigrationStep {
        let old = try bundle.version(named: stage.fromVersion).model
        let new = try bundle.version(named: stage.toVersion).model
        let mapping: MappingModel
        if let custom = stage.mapping {
            mapping = custom
        } else {
            guard inferMappings else {
                throw MigrationError(.cannotInfer, "the stage \(stage.fromVersion) → \(stage.toVersion) has no mapping, and inference is off")
            }
            mapping = try MappingModel.inferred(from: old, to: new)
        }
        return MigrationStep(source: old, destination: new, mapping: mapping, name: "\(stage.fromVersion) → \(stage.toVersion)")
    }

    private func migrate(
        _ url: URL, through stages: [MigrationStage], backup: URL?, inferMappings: Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws -> [MigrationReport] {
        var reports: [MigrationReport] = []
        for (number, stage) in stages.enumerated() {
            let step = try step(for: stage, inferMappings: inferMappings)
            if let willMigrate = stage.willMigrate { try await Self.run(willMigrate, on: url, type: .binary, model: step.source) }
            logger.info("migrating", metadata: ["store": "\(url.path)", "from": "\(stage.fromVersion)", "to": "\(stage.toVersion)"])
            reports += try await StoreFileMigration.migrate(
                storeAt: url, type: .binary, steps: [step], fillsMissingValues: fillsMissingValues, backup: number == 0 ? backup : nil,
                progress: progress)
            if let didMigrate = stage.didMigrate { try await Self.run(didMigrate, on: url, type: .binary, model: step.destination) }
        }
        return reports
    }

    /// The stages between code that runs on the store go in one transaction each (a SQLite or
    /// PostgreSQL store migrates in place).
    private func migrateInPlace(
        _ url: URL, type: StoreType, through stages: [MigrationStage], backup: URL?, inferMappings: Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws -> [MigrationReport] {
        var reports: [MigrationReport] = []
        var pending: [MigrationStep] = []
        var backup = backup
        func flush() async throws {
            guard !pending.isEmpty else { return }
            logger.info("migrating", metadata: ["store": "\(url.isFileURL ? url.path : url.absoluteString)", "stages": "\(pending.map(\.name).joined(separator: ", "))"])
            reports += try await StoreFileMigration.migrate(
                storeAt: url, type: type, steps: pending, fillsMissingValues: fillsMissingValues, backup: backup, progress: progress)
            pending = []
            backup = nil
        }
        for stage in stages {
            let step = try step(for: stage, inferMappings: inferMappings)
            if let willMigrate = stage.willMigrate {
                try await flush()
                try await Self.run(willMigrate, on: url, type: type, model: step.source)
            }
            pending.append(step)
            if let didMigrate = stage.didMigrate {
                try await flush()
                try await Self.run(didMigrate, on: url, type: type, model: step.destination)
            }
        }
        try await flush()
        return reports
    }

    private static func run(
        _ body: @escaping @Sendable (isolated ManagedObjectContext) throws -> Void, on url: URL, type: StoreType, model: ManagedObjectModel
    ) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        do {
            try await context.perform { context in
                try body(context)
                if context.hasChanges { try context.save() }
            }
        } catch {
            try? await coordinator.removePersistentStore(store)
            throw error
        }
        try await coordinator.removePersistentStore(store)
    }
}

/// Migrates stores on open (``PersistentStoreOption/migrator``) through a ``MigrationPlan``.
public struct StagedMigrator: StoreMigrator {
    public let plan: MigrationPlan

    public init(plan: MigrationPlan) {
        self.plan = plan
    }

    /// A migrator through every version of `bundle`, with lightweight stages.
    public init(bundle: ModelBundle) {
        plan = MigrationPlan(bundle: bundle)
    }

    public func migrateStore(
        at url: URL, type: StoreType, metadata: [String: MetadataValue], to model: ManagedObjectModel, inferMappingModel: Bool
    ) async throws {
        let target = plan.bundle.versions.last { $0.model.entityVersionHashesByName == model.entityVersionHashesByName }
        guard let target else {
            throw MigrationError(.unknownSourceVersion, "the coordinator's model is not a version of the bundle \(plan.bundle.name)")
        }
        try await plan.migrateStore(at: url, type: type, to: target.name, inferMappings: inferMappingModel)
    }

}

extension PersistentStoreDescription {
    /// Migrates the store on open through the versions of `bundle` (lightweight where no custom
    /// stage is given), as Core Data's automatic migration does.
    public func migrates(through plan: MigrationPlan) {
        shouldMigrateStoreAutomatically = true
        setOption(StagedMigrator(plan: plan), forKey: PersistentStoreOption.migrator)
    }
}
