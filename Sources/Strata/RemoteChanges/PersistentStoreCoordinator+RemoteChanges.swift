import Foundation
import Logging

extension PersistentStoreCoordinator {
    /// Commits other processes (or other coordinators) make to this coordinator's stores that
    /// were added with ``PersistentStoreOption/remoteChangeNotifications``, from now on, in the
    /// order they are noticed. The same changes are posted to `NotificationCenter.default` as
    /// ``RemoteChange/notificationName``, on a queue of the coordinator's.
    public nonisolated var remoteChangeNotifications: AsyncStream<RemoteChange> {
        remoteChanges.subscribe()
    }

    /// The same as ``noticeOutsideChanges(of:)``, entering the coordinator's queue from the
    /// watcher's thread: no task waits for a thread of the concurrency pool, which a busy program
    /// may hold for seconds.
    nonisolated func noticeOutsideChangesSynchronously(of storeIdentifier: String) {
        executor.runSynchronously {
            self.assumeIsolated { $0.noticeOutsideChanges(of: storeIdentifier) }
        }
    }

    /// Another process committed to a store, which says so (the PostgreSQL store, told by the
    /// server): take the change in if the latest generation does not hold it, and announce it
    /// even if it does (a save of this coordinator's may have taken it in already). Entered
    /// from the store's listening thread.
    package nonisolated func storeChangedOutsideSynchronously(_ storeIdentifier: String) {
        executor.runSynchronously {
            self.assumeIsolated { coordinator in
                guard let store = coordinator.persistentStores.first(where: { $0.identifier == storeIdentifier }) as? IncrementalStore else { return }
                guard store.hasOutsideChanges else {
                    if store.postsRemoteChanges { coordinator.announceRemoteChange(of: store) }
                    return
                }
                do {
                    _ = try coordinator.takeOutsideChanges()
                } catch {
                    coordinator.logger.error(
                        "another process changed a store that cannot be read now: \(error)", metadata: ["store": "\(storeIdentifier)"])
                }
            }
        }
    }

    /// A store's files were written: if another connection committed, take the change in (a
    /// new generation) and announce it. Called by the store's file watcher.
    func noticeOutsideChanges(of storeIdentifier: String) {
        guard let store = persistentStores.first(where: { $0.identifier == storeIdentifier }) as? IncrementalStore,
            store.hasOutsideChanges
        else { return }
        do {
            _ = try takeOutsideChanges()
        } catch {
            logger.error("another process changed a store that cannot be read now: \(error)", metadata: ["store": "\(storeIdentifier)"])
        }
    }

    /// Posts a remote change of `store`, with its current history token when it records history.
    func announceRemoteChange(of store: PersistentStore) {
        var token: PersistentHistoryToken?
        if store.tracksPersistentHistory {
            do {
                token = PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: try store.historyBounds().last)
            } catch {
                logger.error("cannot read the history token of a changed store: \(error)", metadata: ["store": "\(store.identifier)"])
            }
        }
        let change = RemoteChange(storeIdentifier: store.identifier, storeURL: store.url, historyToken: token)
        remoteChanges.send(change)
        notificationQueue.async { [self] in
            NotificationCenter.default.post(change.notification(object: self))
        }
    }
}
