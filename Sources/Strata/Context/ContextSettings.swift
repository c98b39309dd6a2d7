/// A context's settings that Core Data code sets from outside the context's queue, right after
/// making it (`viewContext.mergePolicy = …`, `viewContext.name = …`, Xcode's template): kept
/// under a lock of their own, shared by the context and each object graph it has, so that they
/// can be set from any thread and read by the graph where it uses them (a save, a fault firing).
final class ContextSettings: Sendable {
    struct Values {
        var name: String?
        var transactionAuthor: String?
        var mergePolicy = MergePolicy.error
        var stalenessInterval: Double = -1
        /// The task that merges other saves while automatic merging is on.
        var mergingTask: Task<Void, Never>?
    }

    let values = ThreadLocked(Values())

    subscript<Value>(_ key: WritableKeyPath<Values, Value>) -> Value {
        get { values.withLock { $0[keyPath: key] } }
        set { values.withLock { $0[keyPath: key] = newValue } }
    }
}
