import Foundation
import Testing

@Suite struct ModelsCommandTests {
    static let catalog = "Tests/Models/Catalog.xcdatamodeld"
    static let everything = "Tests/Models/Everything.xcdatamodel"

    @Test func showListsVersionsEntitiesAndHashes() async throws {
        let result = try await StrataTool.run("models", "show", Self.catalog)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.prefix(2) == ["Model Catalog 2 (version identifier 2)", "Versions (oldest first): Catalog, Catalog 2 [current], Catalog 10"])
        #expect(lines.contains("Entity Book"))
        #expect(lines.contains("  pages: Integer 32 (required, default 0)"))
        #expect(lines.contains { $0.hasPrefix("  hash ") && $0.count == 7 + 64 })
    }

    @Test func showSaysWhatItCoerced() async throws {
        let result = try await StrataTool.run("models", "show", "Tests/Models/XcodeFeatures.xcdatamodel")
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("Coerced as Core Data does:"))
        #expect(lines.contains(#"  Quake.depth: defaultValueString="0.0" on a Integer 64 attribute is taken as 0, as Core Data reads it"#))
        #expect(lines.contains("  magnitude: Composite (optional)"))
        #expect(lines.contains("    richter: Double (optional, default 0.0)"))
        #expect(lines.contains("  scratch: Undefined (optional, transient)"))
        let json = try await StrataTool.run("models", "show", "Tests/Models/XcodeFeatures.xcdatamodel", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["coerced"] as? [String])?.count == 8)
        #expect((object["versionChecksum"] as? String)?.count == 64)
    }

    @Test func showPrintsJSON() async throws {
        let result = try await StrataTool.run("models", "show", Self.everything, "--json")
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Gadget", "Item", "Part", "Person"])
        let item = try #require(entities.first { $0["name"] as? String == "Item" })
        #expect(item["subentities"] as? [String] == ["Gadget"])
        #expect((item["relationships"] as? [[String: Any]])?.first { $0["name"] as? String == "parts" }?["isOrdered"] as? Bool == true)
    }

    @Test func showAVersionOfABundle() async throws {
        let result = try await StrataTool.run("models", "show", Self.catalog, "--version", "Catalog 10")
        #expect(result.status == 0)
        #expect(result.output.contains("Entity Author"))
    }

    @Test func diffSaysWhatChangedAndWhichHashes() async throws {
        let result = try await StrataTool.run("models", "diff", Self.catalog, "--from", "Catalog 2", "--to", "Catalog 10")
        #expect(result.status == 0)
        #expect(result.output == """
            Catalog 2 → Catalog 10
              Author: entityAdded
              Book.author: propertyAdded (relationship to Author)
            Version hashes change for: Author, Book.

            """)
    }

    @Test func diffDefaultsToThePreviousAndCurrentVersions() async throws {
        let result = try await StrataTool.run("models", "diff", Self.catalog)
        #expect(result.output.hasPrefix("Catalog → Catalog 2\n  Book.pages: propertyAdded (attribute, Integer 32)\n"))
    }

    @Test func diffOfTheSameModelFindsNothing() async throws {
        let result = try await StrataTool.run("models", "diff", Self.everything, Self.everything)
        #expect(result.output == "Everything → Everything\nNo changes: the models are the same for storage.\n")
    }

    /// `models compile` writes what momc writes — a `.momd` for a bundle, a `.mom` for a model —
    /// and `models show` and `models diff` read what it wrote as they read the source.
    @Test func compileWritesWhatShowAndDiffRead() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("Catalog.momd")
        let compiled = try await StrataTool.run("models", "compile", Self.catalog, momd.path)
        #expect(compiled.status == 0, "\(compiled.errors)")
        #expect(compiled.output.contains("Compiled Catalog: 3 versions (current 'Catalog 2')"))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: momd.path)) == ["Catalog.mom", "Catalog 2.mom", "Catalog 10.mom", "VersionInfo.plist"])
        let source = try await StrataTool.run("models", "show", Self.catalog, "--json")
        let shown = try await StrataTool.run("models", "show", momd.path, "--json")
        #expect(shown.status == 0, "\(shown.errors)")
        // The same entities, properties, hashes and versions, as the source shows them (keys sorted).
        #expect(!shown.output.isEmpty && shown.output == source.output)
        let diff = try await StrataTool.run("models", "diff", momd.path, "--from", "Catalog", "--to", "Catalog 2")
        let sourceDiff = try await StrataTool.run("models", "diff", Self.catalog, "--from", "Catalog", "--to", "Catalog 2")
        #expect(diff.status == 0 && diff.output == sourceDiff.output, "\(diff.output)\(diff.errors)")

        let mom = directory.appendingPathComponent("Everything.mom")
        let single = try await StrataTool.run("models", "compile", Self.everything, mom.path)
        #expect(single.status == 0, "\(single.errors)")
        let wrong = try await StrataTool.run("models", "compile", Self.catalog, directory.appendingPathComponent("Catalog.mom").path)
        #expect(wrong.status != 0 && wrong.errors.contains("compiles to a .momd folder"))
    }

    @Test func badInputIsAnErrorOnStderrWithAFailingStatus() async throws {
        let missing = try await StrataTool.run("models", "show", "Tests/Models/Nothing.xcdatamodel")
        #expect(missing.status != 0)
        #expect(missing.output.isEmpty)
        #expect(missing.errors.hasPrefix("Error: "))
        #expect(missing.errors.contains("Nothing.xcdatamodel/contents: cannot read the model file"))

        let version = try await StrataTool.run("models", "diff", Self.catalog, "--from", "Catalog 3")
        #expect(version.status != 0)
        #expect(version.errors.contains("the bundle has no version 'Catalog 3' (it has: Catalog, Catalog 2, Catalog 10)"))
    }
}

/// Every version of every real bundle can be shown, and consecutive versions diffed.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: sharedFixtures.path), "the shared Xcode fixtures are not beside the project"))
struct ModelsOnSharedFixtures {
    static let folder = sharedFixtures

    @Test func showAndDiffRunOnEveryBundle() async throws {
        let walker = try #require(FileManager.default.enumerator(at: Self.folder, includingPropertiesForKeys: nil))
        var bundles: [URL] = []
        for case let url as URL in walker where url.pathExtension == "xcdatamodeld" {
            bundles.append(url)
            walker.skipDescendants()
        }
        #expect(!bundles.isEmpty)
        for bundle in bundles {
            let versions = try await StrataTool.run("models", "show", bundle.path, "--json")
            #expect(versions.status == 0, "\(bundle.lastPathComponent): \(versions.errors)")
            let json = try JSONSerialization.jsonObject(with: Data(versions.output.utf8)) as? [String: Any]
            let names = json?["versions"] as? [String] ?? []
            for (old, new) in zip(names, names.dropFirst()) {
                let diff = try await StrataTool.run("models", "diff", bundle.path, "--from", old, "--to", new)
                #expect(diff.status == 0, "\(bundle.lastPathComponent) \(old) → \(new): \(diff.errors)")
                let show = try await StrataTool.run("models", "show", bundle.path, "--version", new)
                #expect(show.status == 0)
            }
        }
    }
}

/// The real Xcode models of other projects, beside the project; absent in a user's clone.
let sharedFixtures = StrataTool.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodels")
