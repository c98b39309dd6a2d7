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
    func theWritingVersionHasTheStoresHashes(_ index: Int) async throws {
        let (store, bundle, version) = Self.stores[index]
        let metadata = try await CoreDataStoreReader.metadata(ofStoreAt: Fixtures.sharedSQLiteStores.appendingPathComponent(store))
        let model = try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(bundle)).version(named: version).model
        try Self.expect(model, matches: metadata, store)
    }

    /// A store whose model exists only in code: the model Core Data cached inside it, with a
    /// derived attribute (`pages.@count`), inheritance and uniqueness constraints.
    @Test func theModelCachedInAStoreHasTheStoresHashes() async throws {
        let store = Fixtures.sharedSQLiteStores.appendingPathComponent(
            "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try ManagedObjectModel(contentsOf: try await CoreDataStoreReader.cachedModel(ofStoreAt: store, into: directory))
        try Self.expect(model, matches: try await CoreDataStoreReader.metadata(ofStoreAt: store), store.lastPathComponent)
    }

    /// Strata's own reader of `Z_MODELCACHE` (raw DEFLATE of a keyed archive) rebuilds, from
    /// every fixture store, a model that hashes exactly as the store's metadata says.
    @Test(arguments: stores.map(\.store) + ["alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"])
    func theModelCacheReadsIntoTheWritingModel(_ store: String) async throws {
        let url = Fixtures.sharedSQLiteStores.appendingPathComponent(store)
        let model = try ManagedObjectModel(coreDataModelCache: try await CoreDataStoreReader.modelCache(ofStoreAt: url))
        try Self.expect(model, matches: try await CoreDataStoreReader.metadata(ofStoreAt: url), store)
    }

    @Test func theCachedModelKeepsWhatTheFileSays() async throws {
        let url = Fixtures.sharedSQLiteStores.appendingPathComponent(
            "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite")
        let model = try ManagedObjectModel(coreDataModelCache: try await CoreDataStoreReader.modelCache(ofStoreAt: url))
        let book = try #require(model.entity(named: "Book"))
        #expect(book.attributesByName["pagesCount"]?.derivationExpression == "pages.@count")
        #expect(book.relationshipsByName["pages"]?.isToMany == true)
        #expect(book.relationshipsByName["pages"]?.deleteRule == .cascade)
        #expect(model.entity(named: "GraphicNovel")?.superentityName == "Book")
        #expect(model.entity(named: "Writer")?.isAbstract == true)
        #expect(model.entity(named: "Author")?.fetchedProperties.map(\.name).sorted() == ["favFeedbacks", "feedbacks"])
        #expect(model.fileNotes.contains("Author.feedbacks: the fetched property's predicate is archived as objects, and not read"))
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
