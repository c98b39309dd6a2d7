import ArgumentParser
import Foundation
import Strata

/// `strata models show MODEL`: entities, properties, relationships, inheritance, constraints,
/// indexes and version hashes; for a bundle, its versions and the current one.
struct ShowModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show a model's entities, properties, hashes and versions.")

    @Argument(help: "An .xcdatamodel folder, its contents file, or an .xcdatamodeld bundle.")
    var model: String

    @Option(help: "The bundle version to show (default: the current version).")
    var version: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let source = try ModelSource(path: model)
        let (name, selected) = try source.model(version: version)
        let summary = ModelSummary(
            name: name, model: selected, versions: source.bundle?.versions.map(\.name),
            currentVersion: source.bundle?.currentVersion.name)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(summary.text, terminator: "")
        }
    }
}
