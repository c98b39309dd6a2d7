import Dispatch

/// A serial executor over a private `DispatchQueue`, so that an actor's jobs run on that queue.
///
/// Linux has no `DispatchSerialQueue` executor, so Strata brings its own. Besides running jobs,
/// it answers "am I on this queue?" (`checkIsolated()` and `isIsolatingCurrentContext()`), which
/// is what lets `assumeIsolated` work when code enters the queue synchronously with
/// ``runSynchronously(_:)``: that is how `performAndWait` and a context's save into the
/// coordinator work without a suspension point.
final class DispatchQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue
    /// Marks the queue, so that code can tell whether it runs on it (also when nested).
    private let key = DispatchSpecificKey<ObjectIdentifier>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    /// True when the calling code runs on this executor's queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }

    /// Marks the main queue, so that code can tell whether it runs on it. `Thread.isMainThread`
    /// cannot: under `dispatch_main()` (an async `main` on Linux) worker threads drain the
    /// main queue while the main thread sleeps.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// True when the calling code runs on the main queue.
    static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// Runs `body` on the queue and waits for it; runs it in place when already on the queue,
    /// so that nested synchronous entry does not deadlock.
    func runSynchronously<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent {
            return try body()
        }
        return try queue.sync(execute: body)
    }
}

// DispatchQueue and DispatchSpecificKey are thread-safe by contract but not marked Sendable in
// Linux's Dispatch; the executor's own stored properties are immutable after init.
#if !canImport(Darwin)
extension DispatchQueueExecutor: @unchecked Sendable {}
#endif
