import Foundation

/// A request for persistent history, or to delete it (Core Data's
/// `NSPersistentHistoryChangeRequest`): run it with
/// ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)`` or
/// ``PersistentStoreCoordinator/execute(_:)-(PersistentHistoryChangeRequest)``.
///
/// ```swift
/// var request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// request.authors = .excluding("app")      // what other writers did
/// let transactions = try context.execute(request).transactions
/// ```
///
/// It reads the coordinator's stores that track history
/// (``PersistentStoreOption/persistentHistoryTracking``), or the ones in ``affectedStores``; with
/// a token, those the token names.
public struct PersistentHistoryChangeRequest: Sendable {
    /// Where history starts or ends for the request.
    public enum Position: Sendable, Hashable {
        /// The transactions after this token's, store by store; `nil`: from the beginning.
        case token(PersistentHistoryToken?)
        /// The transactions with a later timestamp (fetch) or an earlier one (delete).
        case date(Date)
    }

    /// Which transactions' authors the request keeps.
    public enum AuthorFilter: Sendable, Hashable {
        case any
        /// Only the transactions of this author.
        case only(String)
        /// Every transaction but this author's, those without an author included: what other
        /// writers did, the usual question of a context that merges history.
        case excluding(String)
    }

    public enum Kind: Sendable, Hashable {
        /// The transactions after the position, oldest first.
        case fetch(after: Position)
        /// Deletes the transactions before the position (a token's own transaction stays).
        case delete(before: Position)
    }

    public var kind: Kind
    /// For a fetch: whose transactions it returns.
    public var authors: AuthorFilter = .any
    /// The identifiers of the stores to read or delete from; `nil`: every store that tracks history.
    public var affectedStores: [String]?

    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// The transactions after `token`'s, in the stores the token names (a transaction's token
    /// names its store, the coordinator's current token every store that records history); every
    /// transaction of every such store when it is `nil`.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.fetch(after: .token(token)))
    }

    /// The transactions whose timestamp is after `date`.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.fetch(after: .date(date)))
    }

    /// The transactions after `transaction`.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction) -> PersistentHistoryChangeRequest {
        fetchHistory(after: transaction.token)
    }

    /// Deletes the transactions before `token`'s, in the stores it names (every transaction of
    /// every store that records history when it is `nil`); the token's own transaction stays, so
    /// that history can be read after it still.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.delete(before: .token(token)))
    }

    /// Deletes the transactions whose timestamp is before `date`.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.delete(before: .date(date)))
    }
}
