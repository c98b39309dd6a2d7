/// What an ``IncrementalStore`` in another module of this package adds to the public contract:
/// the coordinator's calls that the SQLite store overrides in place, which a subclass outside the
/// `Strata` module cannot override (they are not `open`, because their types are not public).
/// The PostgreSQL store (module `StrataPostgres`) conforms.
///
/// Each is called where the same-named internal hook of ``IncrementalStore`` is: on the
/// coordinator's queue.
package protocol PackageIncrementalStore: IncrementalStore {
    /// The store has been added and its metadata checked: create what a new store needs, and
    /// write metadata the coordinator brought up to date.
    func storeWasAdded() throws

    /// Whether another process committed to the store since the last snapshot this store made.
    var hasChangesFromOutside: Bool { get }

    /// The store left its coordinator: close what it holds open.
    func storeWasRemoved()
}
