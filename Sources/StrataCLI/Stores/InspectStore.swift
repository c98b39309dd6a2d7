import ArgumentParser
import Foundation
import Strata

/// `strata inspect STORE`: what a store file holds, read without a model, and whether each
/// chunk's checksum holds; with `--model`, which version of the model wrote it.
struct InspectStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Show a store file's format, metadata, contents and checksums.")

    @Argument(help: "A binary store file.")
    var store: String

    @Option(help: "A model (.xcdatamodel) or bundle (.xcdatamodeld): say which version wrote the store.")
    var model: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let file = try BinaryStoreFile(contentsOf: URL(fileURLWithPath: store))
        var report = StoreReport(file: file)
        do {
            try file.forEachChunk { report.add($0) }
        } catch let error as StoreError {
            report.failure = error.description
        }
        if let model {
            report.writtenBy = try Self.version(of: file, in: ModelSource(path: model))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text, terminator: "")
        }
        if !report.isSound { throw ExitCode(1) }
    }

    /// Which version of a model wrote the store, in words.
    static func version(of file: BinaryStoreFile, in source: ModelSource) throws -> String {
        if let bundle = source.bundle {
            do {
                return "version '\(try bundle.version(forStoreMetadata: file.metadata).name)' of \(bundle.name)"
            } catch let error as PersistenceError {
                return error.message
            }
        }
        let (name, model) = try source.model(version: nil)
        let differences = model.incompatibleEntities(inConfiguration: nil, storeMetadata: file.metadata)
        return differences.isEmpty ? "the model \(name)" : "not the model \(name) (differs in \(differences.joined(separator: ", ")))"
    }
}
