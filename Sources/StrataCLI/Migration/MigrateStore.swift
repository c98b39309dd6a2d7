import ArgumentParser
import Foundation
import Strata
import StrataPostgres

/// `strata migrate STORE --model BUNDLE`: finds the store's version, plans the stages, says what
/// each does, migrates with progress, and verifies the result. Without a store,
/// `strata migrate --plan --model BUNDLE --from V1 --to V2` plans between two versions, so that
/// a model change can be checked in CI before any store exists.
struct MigrateStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Migrate a store to a newer version of its model, stage by stage.")

    @Argument(help: "A binary, SQLite or Core Data XML store file, or a postgres:// URL (none with --plan --from: plan between two versions).")
    var store: String?

    @Option(help: "The model bundle (.xcdatamodeld) whose versions the store migrates through.")
    var model: String

    @Option(help: "The version to plan from, without a store (with --plan).")
    var from: String?

    @Option(help: "The version to migrate to (default: the bundle's current version).")
    var to: String?

    @Option(help: "A mapping model: an Xcode .xcmappingmodel or a compiled .cdm (for the two versions it maps), or Strata's JSON (for the stage inference cannot do).")
    var mapping: String?

    @Flag(name: [.customLong("dry-run"), .customLong("plan")], help: "Say what each stage would do, and stop.")
    var dryRun = false

    @Flag(help: "Give each object that lacks a value a stage makes required the attribute's default or its type's zero value, instead of failing (and say what was filled).")
    var fillDefaults = false

    @Option(help: "Where to keep a copy of the store as it was.")
    var backup: String?

    func validate() throws {
        if store == nil && from == nil {
            throw ValidationError("give a store to migrate, or --plan --from VERSION to plan between two versions")
        }
        if store != nil && from != nil {
            throw ValidationError("--from plans without a store: the store's own version is where it starts")
        }
        if from != nil && !dryRun {
            throw ValidationError("--from only plans: add --plan")
        }
    }

    func run() async throws {
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: model))
        var plan = MigrationPlan(bundle: bundle)
        plan.fillsMissingValues = fillDefaults
        if let mapping, Self.isCoreDataMapping(mapping) {
            // A Core Data mapping model knows its two versions: it is their stage, inferable or not.
            do {
                try plan.addMappingModel(at: URL(fileURLWithPath: mapping), policies: [:], requiringPolicies: !dryRun)
            } catch let error as MigrationError where error.problems.contains(where: { $0.contains("MigrationPolicyRegistry.register") }) {
                // A policy nobody registered: the tool has none of a program's, so say what to do instead.
                throw CommandFailure(
                    "\(error)\nThe strata tool cannot run a program's own policies: migrate in the program "
                        + "(MigrationPlan.addMappingModel(at:policies:)), or see the plan with --plan")
            }
        }
        let target = try to.map { try bundle.version(named: $0) } ?? bundle.currentVersion
        guard let store else {
            // Planning between two versions: the stages as a store written by `from` would take them.
            let source = try bundle.version(named: from ?? "")
            let stages = try plan.stages(forStoreMetadata: source.model.storeMetadata(forConfigurationName: nil), to: target.name)
            say("Versions \(source.name) → \(target.name) of \(bundle.name)")
            guard !stages.isEmpty else {
                say("Nothing to do: the two versions store objects the same way.")
                return
            }
            try describe(stages, in: bundle, plan: &plan)
            return
        }
        let url = try StoreFileKind.url(store)
        let kind = StoreFileKind(of: url)
        if kind == .postgres, backup != nil {
            throw CommandFailure("--backup copies a store file; back a PostgreSQL store up with pg_dump before migrating it")
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: kind.storeType, at: url)
        let source = try bundle.version(forStoreMetadata: metadata, migratingTo: target)
        let stages = try plan.stages(forStoreMetadata: metadata, to: to)
        say("Store \(store): written by version '\(source.name)' of \(bundle.name)")
        guard !stages.isEmpty else {
            say("Nothing to do: the store is at '\(target.name)'.")
            return
        }
        try describe(stages, in: bundle, plan: &plan)
        if dryRun { return }

        let meter = ProgressMeter()
        let reports = try await plan.migrateStore(at: url, type: kind.storeType, to: target.name, backup: backup.map { URL(fileURLWithPath: $0) }) { meter.show($0) }
        meter.finish()
        for report in reports {
            for (place, count) in report.filledValues.sorted(by: { $0.key < $1.key }) {
                say("Filled \(counted(count, "missing value")) of \(place) with its default or its type's zero value (\(report.stage))")
            }
        }
        let (objects, problems) = try await verify(url, kind: kind, model: target.model)
        guard problems.isEmpty else {
            throw CommandFailure("the migrated store does not verify:\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
        say("Migrated to '\(target.name)' and verified: \(counted(objects, "object"))\(backup.map { "; the original is at \($0)" } ?? "").")
    }

    /// Checks the migrated store whole, with the model it is now at.
    private func verify(_ url: URL, kind: StoreFileKind, model: ManagedObjectModel) async throws -> (objects: Int, problems: [String]) {
        switch kind {
        case .binary:
            var verifier = BinaryStoreVerifier(file: try BinaryStoreFile(contentsOf: url))
            verifier.model = model
            try verifier.run()
            return (verifier.objectCount, verifier.problems)
        case .sqlite:
            var verifier = try SQLiteStoreVerifier(url: url)
            verifier.model = model
            try verifier.run()
            return (verifier.objectCount, verifier.problems)
        case .xml:
            var verifier = XMLStoreVerifier(url: url)
            verifier.model = model
            try await verifier.run()
            return (verifier.objectCount, verifier.problems)
        case .postgres:
            var verifier = PostgresStoreVerifier(url: url)
            verifier.model = model
            try verifier.run()
            return (verifier.objectCount, verifier.problems)
        }
    }

    /// Says what each stage does, adding a custom stage for `--mapping`; fails naming every
    /// change inference cannot do when no mapping is given for it.
    private func describe(_ stages: [MigrationStage], in bundle: ModelBundle, plan: inout MigrationPlan) throws {
        let target = stages.last?.toVersion ?? ""
        say("Plan: \(counted(stages.count, "stage")) to '\(target)'")
        var problems: [String] = []
        for (number, stage) in stages.enumerated() {
            let old = try bundle.version(named: stage.fromVersion).model
            let new = try bundle.version(named: stage.toVersion).model
            var how = "inferred"
            var checks: [String] = []
            var entityLines: [String] = []
            if let custom = stage.mapping {
                how = "mapping model \(URL(fileURLWithPath: mapping ?? "").lastPathComponent)"
                checks = custom.requiredValueChecks(from: old, to: new)
                entityLines = MappingDescription.lines(for: custom, source: old)
            } else {
                do {
                    checks = try MappingModel.inferred(from: old, to: new).requiredValueChecks(from: old, to: new)
                } catch let error as MigrationError {
                    if let mapping, !Self.isCoreDataMapping(mapping) {
                        let custom = try MappingModel(contentsOf: URL(fileURLWithPath: mapping), source: old, destination: new)
                        plan.customStages.append(.custom(from: stage.fromVersion, to: stage.toVersion, mapping: custom))
                        how = "custom mapping \(URL(fileURLWithPath: mapping).lastPathComponent)"
                    } else {
                        how = "cannot be inferred"
                        problems += error.problems.map { "\(stage.fromVersion) → \(stage.toVersion): \($0)" }
                    }
                }
            }
            say("  \(number + 1). \(stage.fromVersion) → \(stage.toVersion) (\(how))")
            for line in entityLines { say("       \(line)") }
            for change in ModelDifference(from: old, to: new).changes where change.kind != .versionHashChanged {
                say("       \(change)")
            }
            for check in checks {
                say("       the data decides: \(check)")
            }
        }
        guard problems.isEmpty else {
            throw CommandFailure(
                "the migration needs a mapping model (--mapping FILE.json) for:\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
    }
}

extension MigrateStore {
    /// Whether `path` names a Core Data mapping model (Xcode's or compiled) rather than JSON.
    static func isCoreDataMapping(_ path: String) -> Bool {
        MappingModel.isCoreDataMappingFile(URL(fileURLWithPath: path))
    }
}

/// Writes a line to standard output unbuffered, so that it keeps its place among the progress
/// lines (which are written as they come).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
