import Foundation

/// A value behind an `NSLock`, for state that threads reach without going through a dispatch
/// queue (the coordinator's published generation, stores' state, the SQLite store's snapshots,
/// pool and row caches, registries). `Synchronization.Mutex` would do the same, but
/// ThreadSanitizer (which CI runs the concurrency suites under) does not follow its futex on
/// Linux when a lock is contended, and reports the accesses as races; it follows pthread locks.
package final class ThreadLocked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched inside `lock`, and `Value`s go in and out only through
    // `withLock`, whose callers hand over values they no longer share (connections, rows).
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
