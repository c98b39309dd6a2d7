import Foundation

/// A value behind an `NSLock`. The concurrency tests use it rather than `Synchronization.Mutex`
/// because ThreadSanitizer (which CI runs them under) sees through pthread locks but not through
/// Mutex's futex, and would report its accesses as races.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
