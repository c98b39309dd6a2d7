import Foundation

extension PersistentStoreCoordinator {
    /// Adds a store and returns it, blocking the calling thread until it is added: Core Data's
    /// synchronous `addPersistentStore(ofType:configurationName:at:options:)`, for code that is
    /// not `async` (a command-line tool's setup, an app's launch).
    ///
    /// It waits on a semaphore while the store is added on the coordinator's executor, so it
    /// must not run on a thread of Swift's concurrency pool: called from a task, it throws
    /// rather than risk stalling the pool — use `try await addPersistentStore(type:…)` there,
    /// which the compiler also points to in `async` code.
    ///
    /// - Throws: what ``addPersistentStore(type:configuration:at:options:)`` throws;
    ///   ``PersistenceError`` `.unsupportedRequest` when called from a task.
    @available(*, noasync, message: "use try await addPersistentStore(type:configuration:at:options:)")
    @discardableResult
    public nonisolated func addPersistentStore(
        ofType type: StoreType, configurationName: String?, at url: URL?, options: [String: any Sendable]? = nil
    ) throws -> PersistentStore {
        guard withUnsafeCurrentTask(body: { $0 == nil }) else {
            throw PersistenceError(
                .unsupportedRequest,
                "addPersistentStore(ofType:configurationName:at:options:) blocks its thread, which a task must not do: "
                    + "use try await addPersistentStore(type:configuration:at:options:)")
        }
        let outcome = ThreadLocked<Result<PersistentStore, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<PersistentStore, any Error>
            do {
                result = .success(try await self.addPersistentStore(type: type, configuration: configurationName, at: url, options: options ?? [:]))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // The task set it before it signalled.
        return try outcome.withLock { $0! }.get()
    }
}
