import ArgumentParser
import Foundation
import Strata

/// `strata models diff OLD NEW`: what changed between two models, or two versions of a bundle.
struct DiffModels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two models, or two versions of one bundle.",
        discussion: """
            Compare two model files: strata models diff Old.xcdatamodel New.xcdatamodel
            Compare versions of a bundle: strata models diff Model.xcdatamodeld --from "Model" --to "Model 2"
            (without --from and --to, a bundle's previous and current versions are compared).
            """)

    @Argument(help: "The old model, or a bundle.")
    var old: String

    @Argument(help: "The new model (omit it to compare versions of one bundle).")
    var new: String?

    @Option(help: "The old version, in a bundle.")
    var from: String?

    @Option(help: "The new version, in a bundle.")
    var to: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let (oldName, oldModel, newName, newModel) = try models()
        let difference = ModelDifference(from: oldModel, to: newModel)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let report = Report(
                from: oldName, to: newName, changes: difference.changes,
                changedVersionHashes: difference.entitiesWithChangedHashes)
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("\(oldName) → \(newName)")
        guard !difference.changes.isEmpty else {
            print("No changes: the models are the same for storage.")
            return
        }
        for change in difference.changes where change.kind != .versionHashChanged {
            print("  \(change)")
        }
        let hashes = difference.entitiesWithChangedHashes
        print(hashes.isEmpty
              ? "Version hashes: unchanged (a store written by one opens with the other)."
              : "Version hashes change for: \(hashes.joined(separator: ", ")).")
    }

    /// The JSON form of a comparison.
    struct Report: Encodable {
        var from: String
        var to: String
        var changes: [ModelDifference.Change]
        var changedVersionHashes: [String]
    }

    private func models() throws -> (String, ManagedObjectModel, String, ManagedObjectModel) {
        let first = try ModelSource(path: old)
        if let new {
            let second = try ModelSource(path: new)
            let a = try first.model(version: from)
            let b = try second.model(version: to)
            return (a.name, a.model, b.name, b.model)
        }
        guard let bundle = first.bundle else {
            throw CommandFailure("give two models, or a bundle (.xcdatamodeld) with --from and --to")
        }
        let newVersion = try to.map { try bundle.version(named: $0) } ?? bundle.currentVersion
        let oldVersion: ModelBundle.Version
        if let from {
            oldVersion = try bundle.version(named: from)
        } else {
            guard let index = bundle.versions.firstIndex(of: newVersion), index > 0 else {
                throw CommandFailure("'\(newVersion.name)' is the bundle's first version: name one with --from")
            }
            oldVersion = bundle.versions[index - 1]
        }
        return (oldVersion.name, oldVersion.model, newVersion.name, newVersion.model)
    }
}
