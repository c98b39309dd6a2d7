import Foundation
import Strata
import Testing

/// The hashes Core Data wrote into real stores (`../shared/fixtures/sqlite`) are the hashes Strata
/// computes for the model versions that wrote them. Skipped where the fixtures are absent.
@Suite(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"))
struct CoreDataStoreHashTests {
    /// Each store with the bundle and version that wrote it, as the fixtures' README gives them.
    static let stores: [(store: String, bundle: String, version: String)] = [
        ("wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite",
         "wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld",
         "CoreDataMigration_Example"),
        ("wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite",
         "wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld",
         "CoreDataMigration_Example 2"),
        ("wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite",
         "wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld",
         "CoreDataMigration_Example 3"),
        ("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite",
         "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld", "SampleModel"),
        ("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite",
         "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld", "SampleModel2"),
        ("alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite",
         "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3"),
    ]

    @Test(arguments: stores.indices)
    func theWritingVersionHasTheStoresHashes(_ index: Int) throws {
        let (store, bundle, version) = Self.stores[index]
        let metadata = try CoreDataStoreReader.metadata(ofStoreAt: Fixtures.sharedSQLiteStores.appendingPathComponent(store))
        let model = try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(bundle)).version(named: version).model
        try Self.expect(model, matches: metadata, store)
    }

    /// A store whose model exists only in code: the model Core Data cached inside it, with a
    /// derived attribute (`pages.@count`), inheritance and uniqueness constraints.
    @Test func theModelCachedInAStoreHasTheStoresHashes() throws {
        let store = Fixtures.sharedSQLiteStores.appendingPathComponent(
            "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try ManagedObjectModel(contentsOf: try CoreDataStoreReader.cachedModel(ofStoreAt: store, into: directory))
        try Self.expect(model, matches: try CoreDataStoreReader.metadata(ofStoreAt: store), store.lastPathComponent)
    }

    static func expect(_ model: ManagedObjectModel, matches metadata: CoreDataStoreReader.Metadata, _ store: String) throws {
        let hashes = model.entityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hashes == metadata.hashes, "\(store)")
        if let digest = metadata.digest {
            #expect(model.versionHashesDigest.base64EncodedString() == digest, "\(store)")
        }
        if let checksum = metadata.checksum {
            #expect(model.versionChecksum.base64EncodedString() == checksum, "\(store)")
        }
    }
}
