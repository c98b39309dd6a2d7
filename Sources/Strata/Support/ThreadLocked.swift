import NIOConcurrencyHelpers

/// A value behind a lock, for state that threads reach without going through a dispatch
/// queue (the coordinator's published generation, stores' state, the SQLite store's snapshots,
/// pool and row caches, registries, to-many fault batches).
///
/// Copies share one value and one lock. It is SwiftNIO's `NIOLockedValueBox`: the value and a
/// pthread mutex in one allocation, where an `NSLock` took three (the box, the lock, and the
/// lock's mutex) — a read that makes a to-many fault batch per relationship made them each
/// time. `Synchronization.Mutex` would allocate nothing, but ThreadSanitizer (which CI runs
/// the concurrency suites under) does not follow its futex on Linux when a lock is contended,
/// and reports the accesses as races; it follows pthread locks.
package struct ThreadLocked<Value>: @unchecked Sendable {
    // Safe: the value is only touched inside the box's lock, and `Value`s go in and out only
    // through `withLock`, whose callers hand over values they no longer share (connections,
    // rows).
    private let box: NIOLockedValueBox<Value>

    package init(_ value: Value) { box = NIOLockedValueBox(value) }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try box.withLockedValue(body)
    }
}
