/// An incremental store that is told when it joins and leaves its coordinator, and notices
/// other writers — other processes on the file, other servers on the database — so that the
/// coordinator starts a new generation when one committed. Declared by conforming: the SQLite and
/// PostgreSQL stores do; a store of your own is neither told nor asked.
///
/// Each is called on the coordinator's queue.
package protocol LifecycleAwareStore: IncrementalStore {
    /// The store has been added and its metadata checked: create what a new store needs, and
    /// write metadata the coordinator brought up to date.
    func storeWasAdded() throws

    /// Whether another writer committed to the store since the last snapshot this store made.
    var hasChangesFromOutside: Bool { get }

    /// The store left its coordinator: close what it holds open.
    func storeWasRemoved()
}
