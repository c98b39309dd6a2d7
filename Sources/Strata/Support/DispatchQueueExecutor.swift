import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// The thread running a block of the queue now (``currentThread``), 0 when none.
    ///
    /// The queue's marker is not seen from inside another queue's synchronous block, yet the
    /// thread still holds this queue when it entered the other from one of this queue's
    /// blocks: a parent context's block that waits for its child, whose block reads the parent.
    /// Dispatch's own `sync` would then stop the program ("already owned by current thread");
    /// Core Data runs the nested block in place, and so does ``runSynchronously(_:)``. Relaxed
    /// loads suffice: only the thread itself ever stores its own number here, so a thread
    /// reads its number exactly while it holds the queue.
    private let owner = Atomic<UInt>(0)

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    /// True when the calling code runs on this executor's queue, or inside a synchronous
    /// block of another queue entered from it (the thread holds this queue while it waits).
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) || owner.load(ordering: .relaxed) == Self.currentThread
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { self.owned { job.runSynchronously(on: executor) } }
    }

    /// Runs `body`, a block of the queue, recording the thread as the queue's holder meanwhile.
    private func owned<T>(_ body: () throws -> T) rethrows -> T {
        let previous = owner.exchange(Self.currentThread, ordering: .relaxed)
        defer { owner.store(previous, ordering: .relaxed) }
        return try body()
    }

    /// The calling thread's number.
    static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
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

    /// The thread that holds the main queue while it waits in another queue's synchronous
    /// block (as ``owner``, for the main queue), 0 when none.
    private static let mainOwner = Atomic<UInt>(0)

    /// True when the calling code runs on the main queue, or inside a synchronous block of
    /// another queue entered from it.
    static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true || mainOwner.load(ordering: .relaxed) == currentThread
    }

    /// Runs `body` on the main queue and waits for it; in place when the caller holds the main
    /// queue already (see ``isOnMainQueue``).
    static func runOnMainSynchronously<T>(_ body: () throws -> T) rethrows -> T {
        if isOnMainQueue { return try body() }
        return try DispatchQueue.main.sync(execute: body)
    }

    /// Runs `body` on the queue and waits for it; runs it in place when the caller holds the
    /// queue already (``isCurrent``), so that nested synchronous entry does not deadlock —
    /// also through another queue: a block of this queue that waits on a block of another,
    /// which waits on this one.
    func runSynchronously<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent {
            return try body()
        }
        // The caller's thread keeps holding the main queue while it waits here, if it held it.
        let holdsMain = Self.isOnMainQueue
        return try queue.sync {
            try owned {
                guard holdsMain else { return try body() }
                let previous = Self.mainOwner.exchange(Self.currentThread, ordering: .relaxed)
                defer { Self.mainOwner.store(previous, ordering: .relaxed) }
                return try body()
            }
        }
    }
}

// DispatchQueue and DispatchSpecificKey are thread-safe by contract but not marked Sendable in
// Linux's Dispatch; the executor's own stored properties are immutable after init.
#if !canImport(Darwin)
extension DispatchQueueExecutor: @unchecked Sendable {}
#endif
