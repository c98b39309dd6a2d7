/// Hands each value to every current subscriber's `AsyncStream`: one stream per subscriber,
/// each buffering what it has not read yet.
final class Broadcast<Value: Sendable>: Sendable {
    private let subscribers = ThreadLocked<[Int: AsyncStream<Value>.Continuation]>([:])
    private let nextID = ThreadLocked(0)

    /// A new stream of the values sent from now on; it ends when the subscriber stops reading.
    func subscribe() -> AsyncStream<Value> {
        let id = nextID.withLock { value in
            defer { value += 1 }
            return value
        }
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func send(_ value: Value) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.yield(value)
        }
    }
}
