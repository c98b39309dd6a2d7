import Foundation
import Strata
import Testing

/// Real models that Xcode wrote for other projects: every version of every bundle must load,
/// and write back with the same hashes. Skipped where the shared fixtures are absent.
@Suite(.enabled(if: Fixtures.hasSharedXcodeModels, "the shared Xcode fixtures are not beside the project"))
struct XcodeFixtureTests {
    @Test func everyVersionOfEveryBundleLoads() throws {
        let bundles = Fixtures.sharedBundles()
        #expect(bundles.count >= 10)
        var versions = 0
        for url in bundles {
            let bundle = try ModelBundle(contentsOf: url)
            versions += bundle.versions.count
            for version in bundle.versions {
                #expect(!version.model.entities.isEmpty, "\(url.lastPathComponent)/\(version.name)")
            }
        }
        #expect(versions >= 45)
    }

    @Test func everyVersionWritesBackWithTheSameHashes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for url in Fixtures.sharedBundles() {
            for version in try ModelBundle(contentsOf: url).versions {
                let copy = directory.appendingPathComponent("\(UUID().uuidString).xcdatamodel")
                try version.model.write(toModelAt: copy)
                let reread = try ManagedObjectModel(contentsOf: copy)
                #expect(reread.entityVersionHashesByName == version.model.entityVersionHashesByName,
                        "\(url.lastPathComponent)/\(version.name)")
                #expect(reread.configurations == version.model.configurations)
                #expect(reread.fetchRequestTemplates == version.model.fetchRequestTemplates)
            }
        }
    }

    @Test func versionsAreOrderedAndTheCurrentOneIsFound() throws {
        let moody = Fixtures.sharedXcodeModels.appendingPathComponent("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld")
        let bundle = try ModelBundle(contentsOf: moody)
        #expect(bundle.versions.map(\.name) == ["Moody", "Moody 2", "Moody 3", "Moody 4", "Moody 5", "Moody 6"])
        #expect(bundle.currentVersion.name == "Moody 6")

        let kiwix = try ModelBundle(
            contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent("kiwix__kiwix-apple/Shared/CoreData/Support/Kiwix.xcdatamodeld"))
        #expect(kiwix.versions.map(\.name) == ["Kiwix", "1.5", "1.7", "1.8", "1.9"])

        let sample = try ModelBundle(
            contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(
                "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"))
        #expect(sample.currentVersion.name == "SampleModel", ".xccurrentversion may name the first version")
    }

    @Test func identicalVersionsHaveIdenticalHashes() throws {
        let bundle = try ModelBundle(
            contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(
                "objective-audio__CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/Model.xcdatamodeld"))
        let hashes = bundle.versions.map(\.model.entityVersionHashesByName)
        #expect(hashes[0] == hashes[1], "Model and Model 1 differ only in their version identifier")
        #expect(hashes[1] != hashes[2])
    }
}
