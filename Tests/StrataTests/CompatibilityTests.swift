import Foundation
import Strata
import Testing

@Suite struct CompatibilityTests {
    @Test func storeMetadataMatchesItsOwnModelOnly() throws {
        let bundle = try ModelBundle(contentsOf: ModelFileTests.catalog)
        let first = bundle.versions[0].model
        let second = bundle.versions[1].model
        let metadata = first.storeMetadata(forConfigurationName: nil)
        #expect(first.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        #expect(!second.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        #expect(second.incompatibleEntities(inConfiguration: nil, storeMetadata: metadata) == ["Book (changed)"])
        let third = bundle.versions[2].model
        #expect(third.incompatibleEntities(inConfiguration: nil, storeMetadata: metadata) == ["Author (not in the store)", "Book (changed)"])
        #expect(first.incompatibleEntities(inConfiguration: nil, storeMetadata: third.storeMetadata(forConfigurationName: nil))
            == ["Author (only in the store)", "Book (changed)"])
        #expect(!first.isConfiguration(nil, compatibleWithStoreMetadata: [:]))
    }

    @Test func aBundleFindsTheVersionThatWroteAStore() throws {
        let bundle = try ModelBundle(contentsOf: ModelFileTests.catalog)
        for version in bundle.versions {
            let metadata = version.model.storeMetadata(forConfigurationName: nil)
            #expect(try bundle.version(forStoreMetadata: metadata).name == version.name)
        }
    }

    @Test func aStoreFromANewerVersionIsRefusedAndSaysSo() throws {
        let full = try ModelBundle(contentsOf: ModelFileTests.catalog)
        let older = try ModelBundle(name: "Catalog", versions: full.versions.prefix(2).map { ($0.name, $0.model) })
        let newest = full.versions[2].model.storeMetadata(forConfigurationName: nil)
        let error = #expect(throws: PersistenceError.self) { try older.version(forStoreMetadata: newest) }
        #expect(error?.code == .storeFromNewerModel)
        #expect(error?.message == "the store was written by version 'Catalog 10' of model 'Catalog', newer than any this "
            + "program knows (newest: 'Catalog 2'); open it with a newer version of the program")

        let foreign = try libraryModel().storeMetadata(forConfigurationName: nil)
        let unknown = #expect(throws: PersistenceError.self) { try full.version(forStoreMetadata: foreign) }
        #expect(unknown?.code == .incompatibleStore)
    }

    @Test func aNewStoreRecordsTheModelsHashes() async throws {
        let model = try libraryModel()
        let coordinator = try await makeCoordinator(model)
        let store = try #require(coordinator.persistentStores.first)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
    }
}
