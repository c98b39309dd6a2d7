import Foundation
import Synchronization
import Strata
import Testing

@Suite struct PersistentContainerTests {
    @Test func aContainerRunsTheWholeStack() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = PersistentContainer(name: "Library", managedObjectModel: try libraryModel())
        #expect(container.persistentStoreDescriptions.first?.type == .sqlite, "Core Data's default store")
        #expect(container.persistentStoreDescriptions.first?.url?.lastPathComponent == "Library.sqlite")
        let url = directory.appendingPathComponent("nested/Library.sqlite")
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: url)]
        let stores = try await container.loadPersistentStores()
        #expect(stores.count == 1)
        #expect(stores.first?.url == url, "the folder is created")
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

        let id = try await container.performBackgroundTask { context in
            let author = try Author(context: context)
            author.name = "Austen"
            try context.save()
            return author.objectID
        }
        let name = try await container.viewContext.perform { context in
            try #require(try context.existingObject(with: id) as? Author).name
        }
        #expect(name == "Austen")
        #expect(container.viewContext.concurrencyType == .mainQueue)
        #expect(container.newBackgroundContext().concurrencyType == .privateQueue)
    }

    /// Core Data code subclasses its container to keep the stores elsewhere (an app group)
    /// and to configure the contexts it makes: `defaultDirectoryURL()` and
    /// `newBackgroundContext()` overridden.
    final class AppGroupContainer: PersistentContainer, @unchecked Sendable {
        // Safe to share: it adds no stored properties; the counter is a Mutex.
        static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-app-group-\(getpid())")
        static let contextsMade = Mutex(0)

        override class func defaultDirectoryURL() -> URL { folder }

        override func newBackgroundContext() -> ManagedObjectContext {
            Self.contextsMade.withLock { $0 += 1 }
            return super.newBackgroundContext()
        }
    }

    @Test func aSubclassKeepsItsStoresWhereItSays() async throws {
        defer { try? FileManager.default.removeItem(at: AppGroupContainer.folder) }
        let container = AppGroupContainer(name: "Shared", managedObjectModel: try libraryModel())
        let url = try #require(container.persistentStoreDescriptions.first?.url)
        #expect(url == AppGroupContainer.folder.appendingPathComponent("Shared.sqlite"))
        try await container.loadPersistentStores()
        #expect(FileManager.default.fileExists(atPath: url.path))
        let before = AppGroupContainer.contextsMade.withLock { $0 }
        try await container.performBackgroundTask { context in
            let tag = try Tag(context: context)
            tag.label = "shared"
            try context.save()
        }
        #expect(AppGroupContainer.contextsMade.withLock { $0 } == before + 1, "performBackgroundTask asks the subclass")
    }

    @Test func theCompletionHandlerFormReportsEachStore() async throws {
        let container = PersistentContainer(name: "Library", managedObjectModel: try libraryModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        let unknown = PersistentStoreDescription(type: StoreType(rawValue: "Nonesuch"))
        unknown.isReadOnly = true
        container.persistentStoreDescriptions.append(unknown)
        let results = await withCheckedContinuation { continuation in
            let collected = Collected()
            container.loadPersistentStores { description, error in
                if collected.add("\(description.type): \(error.map { "\($0)" } ?? "ok")") == 2 {
                    continuation.resume(returning: collected.all)
                }
            }
        }
        #expect(results == ["InMemory: ok", "Nonesuch: no store class is registered for the store type 'Nonesuch'"])
    }

    @Test func storesCanBeRemoved() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let store = try #require(coordinator.persistentStores.first)
        try await coordinator.removePersistentStore(store)
        #expect(coordinator.persistentStores.isEmpty)
        let again = await #expect(throws: PersistenceError.self) { try await coordinator.removePersistentStore(store) }
        #expect(again?.code == .storeNotFound)
        let error = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "nowhere"
            return #expect(throws: PersistenceError.self) { try context.save() }
        }
        #expect(error?.code == .noPersistentStore)
    }

    /// A file store added without a URL is refused with a code that says so (it was
    /// `.storeNotFound`, which means a store that is not part of the coordinator), and nothing is added.
    @Test(arguments: [StoreType.sqlite, .binary, .xml])
    func aFileStoreWithoutAURLIsRefusedAsSuch(_ type: StoreType) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let error = await #expect(throws: PersistenceError.self) { try await coordinator.addPersistentStore(type: type, at: nil) }
        #expect(error?.code == .missingStoreURL)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func metadataKeepsTheStoreIdentity() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let store = try #require(coordinator.persistentStores.first)
        let uuid = store.identifier
        #expect(UUID(uuidString: uuid) != nil)
        store.metadata = ["Owner": .string("tests")]
        #expect(store.metadata["Owner"] == .string("tests"))
        #expect(store.metadata[PersistentStore.storeUUIDKey] == .string(uuid))
        #expect(store.metadata[PersistentStore.storeTypeKey] == .string("InMemory"))
    }

    @Test func theDefaultDirectoryFollowsXDG() {
        let url = PersistentContainer.defaultDirectoryURL()
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            #expect(url.path == URL(fileURLWithPath: xdg).path)
        } else {
            #expect(url.path.hasSuffix("/.local/share"))
        }
    }
}

/// Collects results from concurrent callbacks.
final class Collected: Sendable {
    private let items = Mutex<[String]>([])

    func add(_ item: String) -> Int {
        items.withLock { $0.append(item); return $0.count }
    }

    var all: [String] { items.withLock { $0 } }
}

/// `PersistentContainer(name:)`: the model found by name among resources.
@Suite struct ContainerModelLookupTests {
    @Test func aBundleIsPreferredToASingleModelAndTheSearchSaysWhereItLooked() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("Empty.resources")
        let resources = directory.appendingPathComponent("App_Models.resources")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let model = try libraryModel()
        try model.write(toModelAt: resources.appendingPathComponent("Library.xcdatamodel"))
        try model.write(toModelAt: resources.appendingPathComponent("Library.xcdatamodeld/Library.xcdatamodel"))
        #expect(try PersistentContainer.modelURL(named: "Library", in: [empty, resources]).lastPathComponent == "Library.xcdatamodeld")

        let container = try PersistentContainer(name: "Library", bundles: [try #require(Bundle(url: resources))])
        #expect(container.managedObjectModel.entityVersionHashesByName == model.entityVersionHashesByName)

        let error = #expect(throws: ModelFileError.self) { try PersistentContainer(name: "Missing", bundles: [try #require(Bundle(url: empty))]) }
        #expect(error?.code == .unreadable)
        #expect(error?.message.hasPrefix(
            "no model named 'Missing' (Missing.xcdatamodeld or Missing.xcdatamodel) among the program's resources; looked in: \(empty.path)") == true)
    }
}
