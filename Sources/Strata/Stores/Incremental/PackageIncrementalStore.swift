import Foundation

/// What an ``IncrementalStore`` in another module of this package adds to the public contract:
/// the coordinator's calls that the SQLite store overrides in place, which a subclass outside the
/// `Strata` module cannot override (they are not `open`, because their types are not public).
/// The PostgreSQL store (module `StrataPostgres`) conforms.
///
/// Each instance hook is called where the internal hook of ``IncrementalStore`` it stands for is:
/// on the coordinator's queue, or (the reads) on the reading context's thread. The static ones
/// let migration on open and ``MigrationPlan`` migrate a store of the type in place, as they
/// migrate binary and SQLite store files.
package protocol PackageIncrementalStore: IncrementalStore {
    /// The store has been added and its metadata checked: create what a new store needs, and
    /// write metadata the coordinator brought up to date.
    func storeWasAdded() throws

    /// Whether another process committed to the store since the last snapshot this store made.
    var hasChangesFromOutside: Bool { get }

    /// The store left its coordinator: close what it holds open.
    func storeWasRemoved()

    /// The objects of one entity (not its subentities) that may match `predicate`, read through
    /// `snapshot` straight into rows: what a fetch reads, without the nodes of
    /// ``IncrementalStore/execute(_:with:)``. Called on the fetching context's thread.
    func rows(ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws
        -> [(reference: Int64, row: Row)]

    /// One object's row as `snapshot` has it, or `nil` when it has no such object: what a fault
    /// reads. Called on the reading context's thread.
    func row(forObject id: ManagedObjectID, layout: EntityLayout, in snapshot: any IncrementalStoreSnapshot) throws -> Row?

    /// The rows of the objects of one entity (not its subentities) among `references`, as
    /// `snapshot` has them, read together: what a fetch prefetches. Those the store does not
    /// have are left out. Called on the fetching context's thread.
    func rows(ofEntity layout: EntityLayout, references: [Int64], in snapshot: any IncrementalStoreSnapshot) throws
        -> [(reference: Int64, row: Row)]

    /// The objects of one entity (not its subentities) that match `predicate` exactly, sorted
    /// by `sort` (attribute name, ascending) with `offset` and `limit` (0: none) applied, when the
    /// store can sort as the context does; `nil` when it cannot, and the context sorts and
    /// windows what ``rows(ofEntity:matching:in:)`` gives. Called on the fetching context's thread.
    func rows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)]?

    /// A dictionary fetch's groups of one entity's objects (not its subentities') that match
    /// `predicate`, computed by the store (``RelationalGrouping``); `nil` when it cannot compute
    /// them exactly as the fetching context would. Called on the fetching context's thread.
    func groups(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [StoreGroup]?

    /// How many objects of one entity (not its subentities) match `predicate` in `snapshot`,
    /// counted by the store; `nil` when it cannot count exactly, and the context counts what a
    /// fetch returns. Called on the counting context's thread.
    func count(ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws -> Int?

    /// Commits a save's rows, as ``IncrementalStore/execute(_:with:)`` does a save request; with
    /// `history` (the store tracks persistent history), records it as one transaction of
    /// persistent history in the same transaction of the store.
    func save(_ changes: RowChanges, recording history: SaveHistory?) throws -> [ManagedObjectID: Int64]

    /// The transactions of persistent history after `position` (oldest first) whose author
    /// `authors` lets through: what ``PersistentStoreCoordinator/execute(_:)-(PersistentHistoryChangeRequest)`` reads.
    func recordedHistory(after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter) throws
        -> [PersistentHistoryTransaction]

    /// Deletes the transactions before `position` (every one for a `nil` token); returns how many.
    func removeHistory(before position: PersistentHistoryChangeRequest.Position) throws -> Int

    /// The number of the last transaction ever recorded (0 for none), and of the first one the
    /// history still holds (`last + 1` when it holds none): a token below it has expired.
    func recordedHistoryBounds() throws -> (last: Int64, firstKept: Int64)

    /// The metadata of the store at `url`, or `nil` when there is no store there yet.
    static func existingMetadata(at url: URL) throws -> [String: MetadataValue]?

    /// Migrates the store at `url` through `steps`, in place, whole or not at all. Called on a
    /// thread of its own (it blocks for the whole migration).
    ///
    /// - Throws: ``MigrationError`` (the store is not at the first step's source version, its
    ///   data breaks the destination's rules, the migration was cancelled), or the store's errors.
    static func migrateStore(
        at url: URL, through steps: [MigrationStep], fillsMissingValues: Bool, isCancelled: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> [MigrationReport]
}
