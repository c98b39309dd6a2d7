import Foundation
import Strata
import StrataTestSupport
import Testing

/// The coordinator's store API as Core Data code calls it (issue 33): the synchronous
/// `addPersistentStore(ofType:configurationName:at:options:)` from code that is not `async`,
/// and `NSPersistentStoreCoordinatorStoresDidChange` with the `added` and `removed` stores.
@Suite struct CoordinatorStoreAPITests {
    /// Runs `body` on a thread of its own, outside Swift's concurrency pool, as a program's
    /// setup code runs.
    static func onAThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Code that is not `async` — but, here, running in a task.
    static func addSynchronously(_ coordinator: PersistentStoreCoordinator, at url: URL) throws -> PersistentStore {
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url)
    }

    @Test func aStoreIsAddedSynchronouslyOutsideTasks() async throws {
        let url = try ScratchStores.folder().appendingPathComponent("sync-\(UUID().uuidString).sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let outcome = await Self.onAThread { () -> (Bool, String?) in
            do {
                let store = try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: nil)
                let added = coordinator.persistentStores.contains { $0 === store }
                do {
                    _ = try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url)
                    return (added, nil)
                } catch let error as PersistenceError {
                    return (added, "\(error.code)")
                }
            } catch {
                return (false, "\(error)")
            }
        }
        #expect(outcome.0, "the store is there when the call returns")
        #expect(outcome.1 == "\(PersistenceError.Code.storeAlreadyAdded)", "the store's own errors are thrown")

        let label = try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "added without await"
            try context.save()
            return try context.fetch(FetchRequest<Tag>()).map(\.label)
        }
        #expect(label == ["added without await"])
    }

    @Test func inATaskTheSynchronousFormIsRefusedNotBlocked() async throws {
        let url = try ScratchStores.folder().appendingPathComponent("sync-\(UUID().uuidString).sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        #expect(throws: PersistenceError.self) { try Self.addSynchronously(coordinator, at: url) }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func addingAndRemovingStoresIsAnnounced() async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let seen = Locked<[(added: [ObjectIdentifier], removed: [ObjectIdentifier])]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.storesDidChangeNotification, object: coordinator, queue: nil
        ) { note in
            func ids(_ key: String) -> [ObjectIdentifier] {
                ((note.userInfo?[key] as? [PersistentStore]) ?? []).map(ObjectIdentifier.init)
            }
            let record = (
                added: ids(PersistentStoreCoordinator.addedPersistentStoresKey),
                removed: ids(PersistentStoreCoordinator.removedPersistentStoresKey)
            )
            seen.withLock { $0.append(record) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let store = try await coordinator.addPersistentStore(type: .inMemory)
        try await coordinator.removePersistentStore(store)
        let records = seen.withLock { $0 }
        #expect(records.count == 2)
        #expect(records.first?.added == [ObjectIdentifier(store)] && records.first?.removed == [])
        #expect(records.last?.removed == [ObjectIdentifier(store)] && records.last?.added == [])
    }
}
