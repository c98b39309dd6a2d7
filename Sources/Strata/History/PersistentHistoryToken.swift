/// Where a reader of persistent history is: the last transaction it has seen, per store (Core
/// Data's `NSPersistentHistoryToken`).
///
/// Keep the token of the last transaction you processed (it is `Codable`: write it to
/// `UserDefaults`, a file, a row) and ask for the history after it next time; it stays valid
/// across launches, because it holds the store's own transaction numbers. A token is one
/// store's when it comes from a ``PersistentHistoryTransaction``; the coordinator's
/// ``PersistentStoreCoordinator/currentPersistentHistoryToken(fromStores:)`` names every
/// tracking store.
///
/// Tokens of one store compare by their transaction numbers, as Core Data's do. So that
/// `Comparable` is a total order for any two tokens, tokens compare as lists of (store
/// identifier, number) pairs in store order: between tokens of different stores, that order
/// says nothing about which came first.
public struct PersistentHistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The number of the last transaction seen, by store identifier (the store's UUID).
    public let transactionNumbers: [String: Int64]

    /// The token of transaction `number` of the store `storeIdentifier`.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        transactionNumbers = [storeIdentifier: transactionNumber]
    }

    /// A token naming several stores.
    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    public static func < (lhs: PersistentHistoryToken, rhs: PersistentHistoryToken) -> Bool {
        // Pairs (store, number) in store order, compared in turn: for tokens of the same stores,
        // one whose numbers are all at most the other's, one of them below, comes first.
        let left = lhs.transactionNumbers.sorted { $0.key < $1.key }
        let right = rhs.transactionNumbers.sorted { $0.key < $1.key }
        return left.lexicographicallyPrecedes(right) { a, b in a.key != b.key ? a.key < b.key : a.value < b.value }
    }

    public var description: String {
        transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }
}
