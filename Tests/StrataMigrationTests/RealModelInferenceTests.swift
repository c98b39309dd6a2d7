import Foundation
import Strata
import Testing

/// Inference between consecutive versions of real Xcode models. Where the fixtures' README names
/// no hand-made mapping model upstream, inference is expected to succeed. Skipped where the
/// shared fixtures are absent.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: MigrationFixtures.sharedXcodeModels.path), "no shared fixtures"))
struct RealModelInferenceTests {
    /// Steps for which upstream shipped a hand-made mapping model (from the fixtures' README).
    static let customSteps: Set<String> = [
        "SampleModel2 → SampleModel3", "Version 2 → Version 3", "Version 1 → Version 2",
        "Advanced.EvolutionDemo.V1 → Advanced.EvolutionDemo.V2", "Moody 2 → Moody 3", "Moody 3 → Moody 4",
        "Moody 4 → Moody 5", "Moody 5 → Moody 6", "Kiwix → 1.5", "1.7 → 1.8", "1.8 → 1.9", "Model 1 → Model 2",
        "CoreDataMigration_Example 2 → CoreDataMigration_Example 3", "MigrationDemoV2 → MigrationDemoV3",
        "MigrationDemo → MigrationDemoV2",
    ]

    @Test func inferenceSucceedsWhereUpstreamNeededNoMapping() throws {
        let walker = try #require(FileManager.default.enumerator(at: MigrationFixtures.sharedXcodeModels, includingPropertiesForKeys: nil))
        var outcomes: [String] = []
        for case let url as URL in walker where url.pathExtension == "xcdatamodeld" {
            walker.skipDescendants()
            let bundle = try ModelBundle(contentsOf: url)
            for (old, new) in zip(bundle.versions, bundle.versions.dropFirst()) {
                let step = "\(old.name) → \(new.name)"
                do {
                    _ = try MappingModel.inferred(from: old.model, to: new.model)
                    outcomes.append("inferred: \(bundle.name) \(step)")
                } catch let error as MigrationError {
                    outcomes.append("refused: \(bundle.name) \(step): \(error.problems.joined(separator: "; "))")
                    #expect(Self.customSteps.contains(step), "\(bundle.name) \(step): \(error.problems)")
                }
            }
        }
        print(outcomes.sorted().joined(separator: "\n"))
        #expect(outcomes.count >= 30)
    }
}
