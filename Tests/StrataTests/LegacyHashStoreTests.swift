import Foundation
@testable import Strata
import Testing

/// Stores written before Strata computed Core Data's hashes still open, and their metadata takes
/// Core Data's hashes at their next save.
@Suite struct LegacyHashStoreTests {
    /// A saved library store whose metadata is put back to what Strata wrote before.
    static func legacyStore(in directory: URL, model: ManagedObjectModel) async throws -> URL {
        let url = try await BinaryStoreTests.savedStore(in: directory)
        var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        metadata[PersistentStore.modelVersionHashesKey] = .dictionary(model.legacyEntityVersionHashesByName.mapValues(MetadataValue.data))
        for key in [
            PersistentStore.modelVersionHashesVersionKey, PersistentStore.modelVersionHashesDigestKey,
            PersistentStore.modelVersionChecksumKey,
        ] {
            metadata[key] = nil
        }
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: .binary, at: url)
        return url
    }

    @Test func aStoreWithTheOldHashesOpensAndTakesCoreDatasAtItsNextSave() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try libraryModel()
        let url = try await Self.legacyStore(in: directory, model: model)
        let before = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(ManagedObjectModel.storeMetadataHasLegacyHashes(before))
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: before))

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: .binary, at: url)
        try await backgroundContext(coordinator).perform { context in
            let authors = try context.fetch(FetchRequest<Author>(entityName: "Author"))
            #expect(authors.count == 20)
            authors[0].name = "Renamed"
            try context.save()
        }
        try await coordinator.removePersistentStore(store)

        let after = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(!ManagedObjectModel.storeMetadataHasLegacyHashes(after))
        #expect(after[PersistentStore.modelVersionHashesKey] == .dictionary(model.entityVersionHashesByName.mapValues(MetadataValue.data)))
        #expect(after[PersistentStore.modelVersionChecksumKey] == .string(model.versionChecksum.base64EncodedString()))
    }

    @Test func oldHashesOfAnotherModelAreStillRefused() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try libraryModel()
        let url = try await Self.legacyStore(in: directory, model: model)
        var entities = model.entities
        entities[0].attributes.append(AttributeDescription(name: "nickname", type: .string, isOptional: true))
        let changed = try ManagedObjectModel(entities: entities)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: changed)
        let error = await #expect(throws: PersistenceError.self) { try await coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(error?.code == .incompatibleStore)
    }
}
