import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Compiled models Strata writes (issue 29, §1 and §4): `.mom`/`.momd` as momc writes them,
/// and the model cache of the SQLite stores Strata creates, as Core Data writes it — checked by
/// reading them back, and against Core Data's own caches with an independent reader
/// (`Tests/Scripts/model-archive.py`, on Python's plistlib).
@Suite struct CompiledModelWriterTests {
    static let archiveScript = Fixtures.packageRoot.appendingPathComponent("Tests/Scripts/model-archive.py")

    /// The model an archive holds, as the independent reader sees it (JSON).
    static func independentSummary(of file: URL, deflated: Bool) async throws -> [String: Any] {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", archiveScript.path, "summary", file.path] + (deflated ? ["--deflated"] : []))
        guard result.status == 0 else { throw CoreDataStoreReader.Failure(description: String(decoding: result.errors, as: UTF8.self)) }
        return try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
    }

    /// Every version of every model here and beside the project compiles to a `.mom` that reads
    /// back with its version hashes; every bundle to a `.momd` that reads back with its versions,
    /// current version and hashes (what `strata models compile` checks too).
    @Test func everyModelCompilesAndReadsBackWithItsHashes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // This repository's own bundles, so that a clone without shared/ compiles one too.
        var bundles = try FileManager.default.contentsOfDirectory(at: Fixtures.models, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "xcdatamodeld" }
        bundles += Fixtures.sharedBundles()
        var compiled = 0
        for url in bundles {
            guard let bundle = try? ModelBundle(contentsOf: url) else { continue }
            // Named as momc names it: the bundle's name orders its versions.
            let out = directory.appendingPathComponent("\(compiled)/\(bundle.name).momd")
            try bundle.writeCompiled(to: out)
            let read = try ModelBundle(contentsOf: out)
            #expect(read.versions.map(\.name) == bundle.versions.map(\.name), "\(url.lastPathComponent)")
            #expect(read.currentVersion.name == bundle.currentVersion.name, "\(url.lastPathComponent)")
            for (version, original) in zip(read.versions, bundle.versions) {
                #expect(version.model.entityVersionHashesByName == original.model.entityVersionHashesByName, "\(url.path) \(version.name)")
                #expect(version.model.versionIdentifiers == original.model.versionIdentifiers)
            }
            compiled += 1
        }
        for name in ["Everything.xcdatamodel", "Library.xcdatamodel"] {
            let model = try ManagedObjectModel(contentsOf: Fixtures.models.appendingPathComponent(name))
            let file = directory.appendingPathComponent("\(name).mom")
            try model.compiledModelData().write(to: file)
            let read = try ManagedObjectModel(contentsOf: file)
            #expect(read.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
            #expect(read.entities.map(\.name).sorted() == model.entities.map(\.name).sorted())
        }
        #expect(compiled >= 1)
    }

    /// Every model cache Core Data wrote into a fixture store, read by Strata and written out as a
    /// `.momd`, loads with the hashes the store holds; and Strata's archive of it decodes — with
    /// Python's plistlib, not Strata — to the same entities, properties, flags, types, counts,
    /// delete rules and inverses as Core Data's cache.
    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures are not here"))
    func everyStoresModelCacheRoundTripsAsCoreDataWroteIt() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, entry) in CoreDataStoreHashTests.stores.enumerated() {
            let store = Fixtures.sharedSQLiteStores.appendingPathComponent(entry.store)
            let cache = try await CoreDataStoreReader.modelCache(ofStoreAt: store)
            guard !cache.isEmpty else { continue }
            let model = try ManagedObjectModel(coreDataModelCache: cache)
            let expected = try await CoreDataStoreReader.metadata(ofStoreAt: store).hashes

            let momd = directory.appendingPathComponent("Store\(index).momd")
            try ModelBundle(name: "Store\(index)", versions: [("Store\(index)", model)]).writeCompiled(to: momd)
            let loaded = try ManagedObjectModel(contentsOf: momd)
            #expect(loaded.entityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() } == expected, "\(entry.store)")

            let theirs = directory.appendingPathComponent("theirs\(index).bin")
            try cache.write(to: theirs)
            let ours = directory.appendingPathComponent("ours\(index).bin")
            try model.coreDataModelCache().write(to: ours)
            let theirSummary = try await Self.independentSummary(of: theirs, deflated: true)
            let ourSummary = try await Self.independentSummary(of: ours, deflated: true)
            #expect(Self.differences(ourSummary, theirSummary).isEmpty, "\(entry.store): \(Self.differences(ourSummary, theirSummary))")
        }
    }

    /// Where two JSON values differ, as paths: `Car.properties.owner.deleteRule: 1 ≠ 2`.
    static func differences(_ ours: Any?, _ theirs: Any?, at path: String = "") -> [String] {
        if let a = ours as? [String: Any], let b = theirs as? [String: Any] {
            return Set(a.keys).union(b.keys).sorted().flatMap { differences(a[$0], b[$0], at: path.isEmpty ? $0 : "\(path).\($0)") }
        }
        if let a = ours as? [Any], let b = theirs as? [Any], a.count == b.count {
            return zip(a, b).enumerated().flatMap { differences($1.0, $1.1, at: "\(path)[\($0)]") }
        }
        let same = (ours as? NSObject).map { mine in (theirs as? NSObject).map { mine.isEqual($0) } ?? false } ?? (theirs == nil || theirs is NSNull)
        return same ? [] : ["\(path): \(ours.map { "\($0)" } ?? "nil") ≠ \(theirs.map { "\($0)" } ?? "nil")"]
    }

    /// A SQLite store Strata creates carries its model in `Z_MODELCACHE` as Core Data does: a raw
    /// DEFLATE stream of the archive, which reads back (with Strata, and with Python) as the model.
    @Test(.enabled(if: CoreDataStoreReader.isAvailable, "python3 cannot read SQLite stores here"))
    func aNewSQLiteStoreCarriesItsModelInTheModelCache() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try ManagedObjectModel(contentsOf: Fixtures.models.appendingPathComponent("Library.xcdatamodel"))
        let url = directory.appendingPathComponent("Library.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: .sqlite, at: url)
        try await coordinator.removePersistentStore(store)
        let cache = try await CoreDataStoreReader.modelCache(ofStoreAt: url)
        #expect(!cache.isEmpty)
        #expect(try ManagedObjectModel(coreDataModelCache: cache).entityVersionHashesByName == model.entityVersionHashesByName)
        let file = directory.appendingPathComponent("cache.bin")
        try cache.write(to: file)
        let summary = try await Self.independentSummary(of: file, deflated: true)
        #expect(Set(summary.keys) == Set(model.entities.map(\.name)))
    }
}
