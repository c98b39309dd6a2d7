import Foundation
@testable import Strata
import Testing

/// Binary data Core Data keeps in files of their own ("Allows External Storage";
/// `formats/coredata-sqlite-schema.md` §8: the column holds `0x02`, the file's UUID and NUL, the
/// file is `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>`). A file that is missing or unreadable is
/// that one value's problem: the object reads, the value's access throws a typed error naming
/// the file, and the reference survives saves until the attribute is set.
@Suite struct ExternalDataTests {
    final class Photo: ManagedObject {
        @Attribute("caption") var caption: String?
        @Attribute("image") var image: Data?
    }

    static func model() throws -> ManagedObjectModel {
        var image = AttributeDescription(name: "image", type: .binaryData, isOptional: true)
        image.allowsExternalBinaryDataStorage = true
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Photo", managedObjectClass: Photo.self,
                attributes: [AttributeDescription(name: "caption", type: .string, isOptional: true), image])
        ])
    }

    /// A store whose one photo's image is kept, as Core Data keeps large values, in a file.
    static func storeWithExternalImage(writingFile: Bool) async throws -> (directory: URL, store: URL, file: URL, id: ManagedObjectID) {
        let model = try model()
        let directory = try Fixtures.temporaryDirectory()
        let store = directory.appendingPathComponent("Photos.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try await coordinator.addPersistentStore(type: .sqlite, at: store)
        let id = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            let photo = try Photo(context: context)
            photo.caption = "harbour"
            photo.image = Data([1, 2, 3])
            try context.save()
            return photo.objectID
        }
        try await coordinator.removePersistentStore(added)
        let name = "9E2B8A3C-1F4D-4E5A-8B7C-6D5E4F3A2B1C"
        let file = SQLiteStore.externalDataFile(name, store: store)
        if writingFile {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: 0xAB, count: 200_000).write(to: file)
        }
        let connection = try SQLiteConnection(url: store, readOnly: false, create: false, busyTimeout: .seconds(5))
        try connection.statement("UPDATE ZPHOTO SET ZIMAGE = ?").forEachRow([.blob(Data([2]) + Data(name.utf8) + Data([0]))]) { _ in }
        return (directory, store, file, id)
    }

    @Test func aValueInItsFileReadsAsItsBytes() async throws {
        let (directory, store, _, id) = try await Self.storeWithExternalImage(writingFile: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try await coordinator.addPersistentStore(type: .sqlite, at: store)
        let image = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            (try context.existingObject(with: id) as? Photo)?.image
        }
        #expect(image == Data(repeating: 0xAB, count: 200_000))
    }

    @Test func aMissingFileIsThatValuesTypedErrorAndTheReferenceSurvivesSaves() async throws {
        let (directory, store, file, id) = try await Self.storeWithExternalImage(writingFile: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try await coordinator.addPersistentStore(type: .sqlite, at: store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try await context.perform { context in
            let photo = try #require(try context.existingObject(with: id) as? Photo)
            #expect(photo.caption == "harbour", "the rest of the object reads")
            let error = #expect(throws: StoreError.self) { try photo.value(forKey: "image") }
            #expect(error?.code == .missingExternalData)
            #expect(error?.file == file.path)
            #expect(error?.message == "the externally stored value cannot be read: the file is missing")
            #expect(photo.image == nil, "a typed optional reads nil (and logs the error)")
            guard case .externalDataReference(let reference)? = try photo.primitiveAttributeValue(forKey: "image") else {
                Issue.record("the primitive value is not the reference")
                return
            }
            #expect(reference.fileURL == file)
            photo.caption = "harbour at dusk"
            try context.save()
        }
        // The save wrote the reference back as it was: restoring the file restores the value.
        let connection = try SQLiteConnection(url: store, readOnly: true, create: false, busyTimeout: .seconds(5))
        #expect(try connection.scalar("SELECT ZIMAGE FROM ZPHOTO")
            == .blob(Data([2]) + Data("9E2B8A3C-1F4D-4E5A-8B7C-6D5E4F3A2B1C".utf8) + Data([0])))
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([9, 9]).write(to: file)
        let reader = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try await reader.addPersistentStore(type: .sqlite, at: store)
        let (caption, image) = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: reader).perform { context in
            let photo = try context.existingObject(with: id) as? Photo
            return (photo?.caption, photo?.image)
        }
        #expect(caption == "harbour at dusk")
        #expect(image == Data([9, 9]))
    }

    @Test func settingTheValueReplacesTheReference() async throws {
        let (directory, store, _, id) = try await Self.storeWithExternalImage(writingFile: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try await coordinator.addPersistentStore(type: .sqlite, at: store)
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            let photo = try #require(try context.existingObject(with: id) as? Photo)
            photo.image = Data([4, 5])
            try context.save()
        }
        let connection = try SQLiteConnection(url: store, readOnly: true, create: false, busyTimeout: .seconds(5))
        #expect(try connection.scalar("SELECT ZIMAGE FROM ZPHOTO") == .blob(Data([1, 4, 5])), "inline, with its 0x01 prefix")
    }
}
