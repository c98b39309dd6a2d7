import ArgumentParser
import Foundation
import Strata

/// `strata verify STORE`: a full integrity check. Exit status 0 when the store is sound, 1 with
/// a report of every problem when it is not.
struct VerifyStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a store file: checksums, dangling references, inverse relationships, unique reference numbers.")

    @Argument(help: "A binary store file.")
    var store: String

    @Option(help: "A model (.xcdatamodel) or bundle (.xcdatamodeld) the store must match.")
    var model: String?

    func run() throws {
        let file = try BinaryStoreFile(contentsOf: URL(fileURLWithPath: store))
        var verifier = StoreVerifier(file: file)
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
        if verifier.problems.isEmpty {
            print("\(store): sound (\(counted(verifier.objectCount, "object")), \(counted(verifier.chunkCount, "chunk")))")
        } else {
            print("\(store): \(counted(verifier.problems.count, "problem"))")
            for problem in verifier.problems.prefix(100) { print("  \(problem)") }
            if verifier.problems.count > 100 { print("  … and \(verifier.problems.count - 100) more") }
            throw ExitCode(1)
        }
    }
}
