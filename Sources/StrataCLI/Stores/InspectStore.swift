import ArgumentParser
import Foundation
import Strata

/// `strata inspect STORE`: what a store holds, read without a model, and whether it is sound (a
/// binary file's chunk checksums, SQLite's quick check, a PostgreSQL store's `verify` checks);
/// with `--model`, which version of the model wrote it.
struct InspectStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Show a store's format, metadata, contents and checksums (a file, or a postgres:// URL).")

    @Argument(help: "A store file (binary or SQLite), or a postgres:// URL.")
    var store: String

    @Option(help: "A model (.xcdatamodel) or bundle (.xcdatamodeld): say which version wrote the store.")
    var model: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let url = try StoreFileKind.url(store)
        if StoreFileKind(of: url) == .xml {
            let report = try await XMLStoreReport(url: url, modelPath: model)
            try print(report, json: json)
            if !report.isSound { throw ExitCode(1) }
            return
        }
        if StoreFileKind(of: url) == .postgres {
            let report = try PostgresStoreReport(url: url, argument: store, modelPath: model)
            try print(report, json: json)
            if !report.isSound { throw ExitCode(1) }
            return
        }
        if StoreFileKind(of: url) == .sqlite {
            let report = try SQLiteStoreReport(url: url, modelPath: model)
            try print(report, json: json)
            if !report.isSound { throw ExitCode(1) }
            return
        }
        let file = try BinaryStoreFile(contentsOf: url)
        var report = BinaryStoreReport(file: file)
        do {
            try file.forEachChunk { report.add($0) }
        } catch let error as StoreError {
            report.failure = error.description
        }
        if let model {
            report.writtenBy = try Self.version(ofStoreMetadata: file.metadata, in: ModelSource(path: model))
        }
        try print(report, json: json)
        if !report.isSound { throw ExitCode(1) }
    }

    private func print(_ report: some Encodable & TextReport, json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Swift.print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Swift.print(report.text, terminator: "")
        }
    }

    /// Which version of a model wrote a store, in words.
    static func version(ofStoreMetadata metadata: [String: MetadataValue], in source: ModelSource) throws -> String {
        if let bundle = source.bundle {
            do {
                return "version '\(try bundle.version(forStoreMetadata: metadata).name)' of \(bundle.name)"
            } catch let error as PersistenceError {
                return error.message
            }
        }
        let (name, model) = try source.model(version: nil)
        let differences = model.incompatibleEntities(inConfiguration: nil, storeMetadata: metadata)
        return differences.isEmpty ? "the model \(name)" : "not the model \(name) (differs in \(differences.joined(separator: ", ")))"
    }
}

/// A report `strata inspect` prints as text (or, with `--json`, encodes).
protocol TextReport {
    var text: String { get }
}

extension BinaryStoreReport: TextReport {}
extension SQLiteStoreReport: TextReport {}
extension XMLStoreReport: TextReport {}
