import ArgumentParser
import Foundation
import Strata
import StrataPostgres

/// `strata verify STORE`: a full integrity check. Exit status 0 when the store is sound, 1 with
/// a report of every problem when it is not.
struct VerifyStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a store (a file, or a postgres:// URL): checksums (SQLite: its integrity check and Core Data's schema), dangling references, inverse relationships, unique reference numbers.")

    @Argument(help: "A store file (binary, SQLite or Core Data's XML), or a postgres:// URL.")
    var store: String

    @Option(help: "A model (.xcdatamodel) or bundle (.xcdatamodeld) the store must match.")
    var model: String?

    func run() async throws {
        let url = try StoreFileKind.url(store)
        switch StoreFileKind(of: url) {
        case .sqlite: return try verifySQLite(url)
        case .postgres: return try verifyPostgres(url)
        case .xml: return try await verifyXML(url)
        case .binary: break
        }
        let file = try BinaryStoreFile(contentsOf: url)
        var verifier = BinaryStoreVerifier(file: file)
        if let model {
            let source = try ModelSource(path: model)
            if let bundle = source.bundle {
                do {
                    let version = try bundle.version(forStoreMetadata: file.metadata)
                    verifier.model = version.model
                } catch let error as PersistenceError {
                    verifier.problems.append(error.message)
                }
            } else {
                let model = try source.model(version: nil).model
                let differences = model.incompatibleEntities(inConfiguration: nil, storeMetadata: file.metadata)
                if differences.isEmpty {
                    verifier.model = model
                } else {
                    verifier.problems.append("the store does not match the model: \(differences.joined(separator: ", "))")
                }
            }
        }
        try verifier.run()
        report(verifier.problems, sound: "sound (\(counted(verifier.objectCount, "object")), \(counted(verifier.chunkCount, "chunk")))")
        if !verifier.problems.isEmpty { throw ExitCode(1) }
    }

    private func verifySQLite(_ url: URL) throws {
        let metadata = try SQLiteStore.metadataForPersistentStore(at: url)
        var verifier = try SQLiteStoreVerifier(url: url)
        verifier.modelWasGiven = model != nil
        if let model {
            switch try Self.model(at: model, matching: metadata) {
            case .success(let model): verifier.model = model
            case .failure(let problem): verifier.problems.append(problem.message)
            }
        } else {
            verifier.model = try? SQLiteStore.cachedModel(ofStoreAt: url)
        }
        try verifier.run()
        report(verifier.problems, sound: "sound (\(counted(verifier.objectCount, "object")))")
        for note in verifier.notes { print("  note: \(note)") }
        if !verifier.problems.isEmpty { throw ExitCode(1) }
    }

    private func verifyXML(_ url: URL) async throws {
        var verifier = XMLStoreVerifier(url: url)
        if let model {
            switch try Self.model(at: model, matching: XMLStore.metadataForPersistentStore(at: url)) {
            case .success(let model): verifier.model = model
            case .failure(let problem):
                report([problem.message], sound: "")
                throw ExitCode(1)
            }
        }
        try await verifier.run()
        report(verifier.problems, sound: "sound (\(counted(verifier.objectCount, "object")))")
        if !verifier.problems.isEmpty { throw ExitCode(1) }
    }

    private func verifyPostgres(_ url: URL) throws {
        var verifier = PostgresStoreVerifier(url: url)
        var problems: [String] = []
        if let model {
            switch try Self.model(at: model, matching: PostgresStore.metadataForPersistentStore(at: url)) {
            case .success(let model): verifier.model = model
            case .failure(let problem): problems.append(problem.message)
            }
        }
        if problems.isEmpty {
            try verifier.run()
            problems = verifier.problems
        }
        report(problems, sound: "sound (\(counted(verifier.objectCount, "object")))")
        if !problems.isEmpty { throw ExitCode(1) }
    }

    /// A problem with the model given, said as a verification problem.
    private struct ModelProblem: Error {
        let message: String
    }

    /// The model at `path` (the version of a bundle) that wrote a store with `metadata`, or why
    /// there is none.
    private static func model(at path: String, matching metadata: [String: MetadataValue]) throws -> Result<ManagedObjectModel, ModelProblem> {
        let source = try ModelSource(path: path)
        do {
            let model = try source.bundle.map { try $0.version(forStoreMetadata: metadata).model } ?? source.model(version: nil).model
            let differences = model.incompatibleEntities(inConfiguration: nil, storeMetadata: metadata)
            guard differences.isEmpty else {
                return .failure(ModelProblem(message: "the store does not match the model: \(differences.joined(separator: ", "))"))
            }
            return .success(model)
        } catch let error as PersistenceError {
            return .failure(ModelProblem(message: error.message))
        }
    }

    private func report(_ problems: [String], sound: String) {
        if problems.isEmpty {
            print("\(store): \(sound)")
            return
        }
        print("\(store): \(counted(problems.count, "problem"))")
        for problem in problems.prefix(100) { print("  \(problem)") }
        if problems.count > 100 { print("  … and \(problems.count - 100) more") }
    }
}
