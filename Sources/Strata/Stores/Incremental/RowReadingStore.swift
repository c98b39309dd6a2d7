import Foundation

/// An incremental store that reads rows straight from its own storage — what a fetch, a fault
/// and a prefetch read — rather than through the nodes of the public contract
/// (``IncrementalStore/execute(_:with:)``), and that may sort, window, count and group in its
/// own language. Declared by conforming: the SQLite and PostgreSQL stores do; the coordinator
/// asks any other store through the public contract.
///
/// Each is called on the reading context's thread, with the generation's snapshot.
package protocol RowReadingStore: IncrementalStore {
    /// The objects of one entity (not its subentities) that may match `predicate` (the store
    /// narrows as far as it can, never further), read through `snapshot` straight into rows.
    func rows(ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws
        -> [(reference: Int64, row: Row)]

    /// One object's row as `snapshot` has it, or `nil` when it has no such object: what a fault
    /// reads.
    func row(forObject id: ManagedObjectID, layout: EntityLayout, in snapshot: any IncrementalStoreSnapshot) throws -> Row?

    /// The rows of the objects of one entity (not its subentities) among `references`, read
    /// together: what a fetch prefetches. Those the store does not have are left out.
    func rows(ofEntity layout: EntityLayout, references: [Int64], in snapshot: any IncrementalStoreSnapshot) throws
        -> [(reference: Int64, row: Row)]

    /// The rows of the objects of `layouts` — an entity and subentities, one table in Core
    /// Data's schema — among `references`, read together in one statement per chunk, each with
    /// its entity's position in `layouts`: a batch of books and ebooks read in one round trip.
    /// `nil` when the store reads them an entity at a time (``rows(ofEntity:references:in:)``).
    func rows(ofEntities layouts: [EntityLayout], references: [Int64], in snapshot: any IncrementalStoreSnapshot) throws
        -> [(entity: Int, reference: Int64, row: Row)]?

    /// The objects of one entity (not its subentities) that match `predicate` exactly, sorted
    /// by `sort` (attribute name, ascending) with `offset` and `limit` (0: none) applied, when the
    /// store can sort as the context does; `nil` when it cannot, and the context sorts and
    /// windows what ``rows(ofEntity:matching:in:)`` gives.
    func rows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)]?

    /// The objects of `layouts` — an entity, then those of its subentities a fetch includes (one
    /// table in Core Data's schema) — that match `predicate` exactly, sorted by `sort` (attributes
    /// of the first) and windowed as ``rows(ofEntity:matching:sortedBy:offset:limit:in:)``, as
    /// references with their entity's name, without their rows: what a fetch with a batch size
    /// reads first (its objects' rows are read a batch at a time as they fire), and a sorted
    /// fetch across a hierarchy (their rows read by reference after); `nil` when the store
    /// cannot answer exactly.
    func references(
        ofEntities layouts: [EntityLayout], matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)],
        offset: Int, limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(entity: String, reference: Int64)]?

    /// How many objects of `layouts` (an entity, then the subentities a fetch includes) match
    /// `predicate` in `snapshot`, counted by the store; `nil` when it cannot count exactly, and
    /// the context counts what a fetch returns.
    func count(ofEntities layouts: [EntityLayout], matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws -> Int?

    /// A dictionary fetch's groups of one entity's objects (not its subentities') that match
    /// `predicate`, computed by the store (``RelationalGrouping``); `nil` when it cannot compute
    /// them exactly as the fetching context would.
    func groups(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [StoreGroup]?
}

extension RowReadingStore {
    /// Entity by entity: the SQLite store's statements cost no round trip.
    package func rows(ofEntities layouts: [EntityLayout], references: [Int64], in snapshot: any IncrementalStoreSnapshot) throws
        -> [(entity: Int, reference: Int64, row: Row)]?
    {
        nil
    }
}
