import ArgumentParser
import Foundation
import Strata
import StrataMigration

/// `strata migrate STORE --model BUNDLE`: finds the store's version, plans the stages, says what
/// each does, migrates with progress, and verifies the result.
struct MigrateStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Migrate a store to a newer version of its model, stage by stage.")

    @Argument(help: "A binary store file.")
    var store: String

    @Option(help: "The model bundle (.xcdatamodeld) whose versions the store migrates through.")
    var model: String

    @Option(help: "The version to migrate to (default: the bundle's current version).")
    var to: String?

    @Option(help: "A mapping model (JSON) for the stage that inference cannot do.")
    var mapping: String?

    @Flag(help: "Say what each stage would do, and stop.")
    var dryRun = false

    @Option(help: "Where to keep a copy of the store as it was.")
    var backup: String?

    func run() async throws {
        let url = URL(fileURLWithPath: store)
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: model))
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        let source = try bundle.version(forStoreMetadata: metadata)
        var plan = MigrationPlan(bundle: bundle)
        let stages = try plan.stages(forStoreMetadata: metadata, to: to)
        let target = try to.map { try bundle.version(named: $0) } ?? bundle.currentVersion
        say("Store \(store): written by version '\(source.name)' of \(bundle.name)")
        guard !stages.isEmpty else {
            say("Nothing to do: the store is at '\(target.name)'.")
            return
        }
        say("Plan: \(stages.count) stage(s) to '\(target.name)'")
        var problems: [String] = []
        for (number, stage) in stages.enumerated() {
            let old = try bundle.version(named: stage.fromVersion).model
            let new = try bundle.version(named: stage.toVersion).model
            var how = "inferred"
            do {
                _ = try MappingModel.inferred(from: old, to: new)
            } catch let error as MigrationError {
                if let mapping {
                    let custom = try MappingModel(contentsOf: URL(fileURLWithPath: mapping), source: old, destination: new)
                    plan.customStages.append(.custom(from: stage.fromVersion, to: stage.toVersion, mapping: custom))
                    how = "custom mapping \(URL(fileURLWithPath: mapping).lastPathComponent)"
                } else {
                    how = "cannot be inferred"
                    problems += error.problems.map { "\(stage.fromVersion) → \(stage.toVersion): \($0)" }
                }
            }
            say("  \(number + 1). \(stage.fromVersion) → \(stage.toVersion) (\(how))")
            for change in ModelDifference(from: old, to: new).changes where change.kind != .versionHashChanged {
                say("       \(change)")
            }
        }
        guard problems.isEmpty else {
            throw CommandFailure(
                "the migration needs a mapping model (--mapping FILE.json) for:\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
        if dryRun { return }

        let meter = ProgressMeter()
        try await plan.migrateStore(at: url, to: target.name, backup: backup.map { URL(fileURLWithPath: $0) }) { meter.show($0) }
        meter.finish()
        var verifier = StoreVerifier(file: try BinaryStoreFile(contentsOf: url))
        verifier.model = target.model
        try verifier.run()
        guard verifier.problems.isEmpty else {
            throw CommandFailure("the migrated store does not verify:\n" + verifier.problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
        say("Migrated to '\(target.name)' and verified: \(verifier.objectCount) objects\(backup.map { "; the original is at \($0)" } ?? "").")
    }
}

/// Writes a line to standard output unbuffered, so that it keeps its place among the progress
/// lines (which are written as they come).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
