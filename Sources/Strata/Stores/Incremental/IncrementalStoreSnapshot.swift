/// What an ``IncrementalStore`` reads through: a consistent view of its data, as of one moment.
///
/// The coordinator asks the store for one with ``IncrementalStore/newSnapshot()`` after every
/// commit and hands it back to every read of that generation, so that a context reads one
/// state of the store however long it works (Core Data's query generations). A store that can
/// pin a state (a database's read transaction) does it in its snapshot type and lets it go in
/// `deinit`, which runs when no context reads that generation any more.
public protocol IncrementalStoreSnapshot: AnyObject, Sendable {}

/// The snapshot of a store that cannot pin a state: reads see the store as it is when they run.
public final class CurrentStateSnapshot: IncrementalStoreSnapshot {
    public init() {}
}
