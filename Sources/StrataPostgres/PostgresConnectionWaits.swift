import NIOCore
import PostgresNIO
import Strata

/// The synchronous waits in progress on each open connection, failed when the connection closes.
///
/// postgres-nio writes a statement to its channel without a promise of its own for the write: a
/// statement written just as the connection closes (a server restarting, a network that drops)
/// can be lost without its future ever completing, and a synchronous wait for it would never
/// end. Seen once in a handful of full test runs: a save waited in `pg_notify` for good after the
/// server-restart test restarted the server. Every wait on a connection goes through
/// ``PostgresConnection/waitUnlessClosed(_:)`` instead; the first one registers a single callback
/// on the connection's close, which fails the waits still in progress.
final class PostgresConnectionWaits: Sendable {
    static let shared = PostgresConnectionWaits()

    private struct Waits {
        var next: UInt64 = 0
        var byConnection: [ObjectIdentifier: [UInt64: @Sendable () -> Void]] = [:]
    }

    private let waits = ThreadLocked(Waits())

    /// Notes a wait on `connection`, whose `fail` is called if the connection closes before the
    /// wait is removed; returns its number.
    func add(on connection: PostgresConnection, fail: @escaping @Sendable () -> Void) -> UInt64 {
        let key = ObjectIdentifier(connection)
        let (number, isFirst) = waits.withLock { waits -> (UInt64, Bool) in
            waits.next += 1
            let isFirst = waits.byConnection[key] == nil
            waits.byConnection[key, default: [:]][waits.next] = fail
            return (waits.next, isFirst)
        }
        if isFirst {
            // Runs at once if the connection has closed already.
            connection.closeFuture.whenComplete { [self] _ in
                let failing = waits.withLock { $0.byConnection.removeValue(forKey: key) } ?? [:]
                for fail in failing.values { fail() }
            }
        }
        return number
    }

    /// Forgets a wait that ended.
    func remove(_ number: UInt64, on connection: PostgresConnection) {
        let key = ObjectIdentifier(connection)
        waits.withLock { _ = $0.byConnection[key]?.removeValue(forKey: number) }
    }
}

extension PostgresConnection {
    /// `future`'s value, or ``PostgresStoreError/Code/unreachable`` once the connection closes
    /// without answering (``PostgresConnectionWaits``).
    func waitUnlessClosed<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: promise)
        let number = PostgresConnectionWaits.shared.add(on: self) {
            promise.fail(PostgresStoreError(.unreachable, "the connection to the server closed before the server answered"))
        }
        defer { PostgresConnectionWaits.shared.remove(number, on: self) }
        return try promise.futureResult.wait()
    }
}
