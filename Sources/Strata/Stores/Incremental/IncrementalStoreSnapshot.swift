/// What an ``IncrementalStore`` reads through: a consistent view of its data, as of one moment.
///
/// The coordinator asks the store for one with ``IncrementalStore/newSnapshot()`` after every
/// commit and hands it back to every read of that generation, so that a context reads one
/// state of the store however long it works (Core Data's query generations). A store that can
/// pin a state (a database's read transaction) does it in its snapshot type and lets it go in
/// `deinit`, which runs when no context reads that generation any more.
///
/// The coordinator keeps its latest generation between reads, so that reads that follow one
/// another share its snapshot. A snapshot whose pinned state costs its server something while
/// nothing reads (an open transaction on a database server) can let it go when no context holds
/// the generation (``contextsStoppedHolding()``) and say so (``isReleased``): the coordinator's
/// next reader then takes a new snapshot instead.
public protocol IncrementalStoreSnapshot: AnyObject, Sendable {
    /// A context began to hold the snapshot's generation (for a read, or pinned to it), when
    /// none did. Called one at a time with ``contextsStoppedHolding()``, on any thread.
    func contextsBeganHolding()

    /// The last context holding the snapshot's generation let it go: none reads it now, and none
    /// is pinned to it. Reads that come later without holding it (a save's checks) may still
    /// come, and must see the same state or fail.
    func contextsStoppedHolding()

    /// Whether the snapshot let go of its state while no context held its generation: the
    /// coordinator then starts its next reader on a new snapshot.
    var isReleased: Bool { get }
}

extension IncrementalStoreSnapshot {
    /// Does nothing: a snapshot that holds nothing on a server need not know who reads it.
    public func contextsBeganHolding() {}
    /// Does nothing: the snapshot keeps its state until its generation goes.
    public func contextsStoppedHolding() {}
    /// `false`: the snapshot never lets its state go before its generation does.
    public var isReleased: Bool { false }
}

/// The snapshot of a store that cannot pin a state: reads see the store as it is when they run.
public final class CurrentStateSnapshot: IncrementalStoreSnapshot {
    public init() {}
}
