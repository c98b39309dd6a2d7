import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Compiled models (issue 29, §1): a `.momd` (momc's output: one `.mom` per version and
/// `VersionInfo.plist`) and a single `.mom` load as Core Data's `NSManagedObjectModel(contentsOf:)`
/// loads them, with the entity hashes `VersionInfo.plist` and Core Data's stores give.
@Suite(.enabled(if: Fixtures.hasSharedCompiledModels, "the shared compiled fixtures are not here"))
struct CompiledModelTests {
    static let momd = Fixtures.sharedCompiledModels.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd")
    static let source = "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"

    /// Every version hashes as `VersionInfo.plist` says (read here with Python's `plistlib`) and
    /// as the same version of the source bundle does; the current version is the one it names.
    @Test func everyVersionHasTheHashesVersionInfoAndTheSourceGive() async throws {
        let bundle = try ModelBundle(contentsOf: Self.momd)
        #expect(bundle.versions.map(\.name) == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(bundle.currentVersion.name == "SampleModel")
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "-c",
            "import plistlib, json, sys; p = plistlib.load(open(sys.argv[1], 'rb')); "
                + "print(json.dumps({v: {e: h.hex() for e, h in es.items()} for v, es in p['NSManagedObjectModel_VersionHashes'].items()}))",
            Self.momd.appendingPathComponent("VersionInfo.plist").path,
        ])
        let expected = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: [String: String]])
        let sourceBundle = try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(Self.source))
        for version in bundle.versions {
            let hashes = version.model.entityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
            #expect(hashes == expected[version.name], "\(version.name)")
            #expect(version.model.entityVersionHashesByName == (try sourceBundle.version(named: version.name)).model.entityVersionHashesByName)
        }
        #expect(try ManagedObjectModel(contentsOf: Self.momd).entityVersionHashesByName == bundle.currentVersion.model.entityVersionHashesByName)
        let single = try ManagedObjectModel(contentsOf: Self.momd.appendingPathComponent("SampleModel2.mom"))
        #expect(single.entityVersionHashesByName == (try bundle.version(named: "SampleModel2")).model.entityVersionHashesByName)
    }

    /// The stores Core Data wrote with versions of this model are matched to their versions.
    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures are not here"))
    func realStoresFindTheirVersionInTheCompiledBundle() throws {
        let bundle = try ModelBundle(contentsOf: Self.momd)
        for (store, version) in [("SampleModel_V1.sqlite", "SampleModel"), ("SampleModel_V2.sqlite", "SampleModel2")] {
            let url = try CoreDataStoreReader.copied(
                Fixtures.sharedSQLiteStores.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/\(store)"))
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            #expect(try bundle.version(forStoreMetadata: SQLiteStore.metadataForPersistentStore(at: url)).name == version)
        }
    }

    /// `PersistentContainer(name:)` takes `<name>.momd` before the source bundle, as Core Data does.
    @Test func theContainerFindsTheCompiledModelFirst() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: Self.momd, to: directory.appendingPathComponent("SampleModel.momd"))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("SampleModel.xcdatamodeld"), withIntermediateDirectories: true)
        #expect(try PersistentContainer.modelURL(named: "SampleModel", in: [directory]).lastPathComponent == "SampleModel.momd")
    }

    /// A `VersionInfo.plist` that disagrees with a `.mom` is an error naming the version and entity.
    @Test func versionInfoThatDisagreesIsATypedError() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("SampleModel.momd")
        try FileManager.default.copyItem(at: Self.momd, to: copy)
        let info = copy.appendingPathComponent("VersionInfo.plist")
        var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
        var hashes = try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        hashes["SampleModel2"]?["Person"] = Data(repeating: 0, count: 32)
        plist["NSManagedObjectModel_VersionHashes"] = hashes
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: info)
        let error = #expect(throws: ModelFileError.self) { try ModelBundle(contentsOf: copy) }
        #expect(error?.code == .versionInfoMismatch)
        #expect(error?.message == "version 'SampleModel2' does not match its SampleModel2.mom: Person's hash differs")
    }

    /// A `.mom` cut anywhere, or not a model at all: a typed error naming the file, never a crash.
    @Test func damagedCompiledModelsAreTypedErrors() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mom = try Data(contentsOf: Self.momd.appendingPathComponent("SampleModel3.mom"))
        let file = directory.appendingPathComponent("Damaged.mom")
        for length in stride(from: 0, to: mom.count, by: max(1, mom.count / 300)) {
            try mom.prefix(length).write(to: file)
            let error = #expect(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: file) }
            #expect(error?.file == file.path)
        }
        var random = SplitMix64(seed: 0x30D)
        for _ in 0..<300 {
            var damaged = [UInt8](mom)
            damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            try Data(damaged).write(to: file)
            do {
                _ = try ManagedObjectModel(contentsOf: file)
            } catch is ModelFileError {
            } catch {
                Issue.record("an untyped error: \(error)")
            }
        }
        try Data("<?xml version=\"1.0\"?><model/>".utf8).write(to: file)
        #expect(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: file) }
    }
}
