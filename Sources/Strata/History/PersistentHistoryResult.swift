/// What a ``PersistentHistoryChangeRequest`` answers (Core Data's `NSPersistentHistoryResult`).
public enum PersistentHistoryResult: Sendable, Hashable {
    /// A fetch's transactions: store by store in the order the coordinator has its stores,
    /// each store's by transaction number.
    case transactions([PersistentHistoryTransaction])
    /// How many transactions a delete removed.
    case deleted(count: Int)

    /// A fetch's transactions; empty for a delete.
    public var transactions: [PersistentHistoryTransaction] {
        if case .transactions(let transactions) = self { return transactions }
        return []
    }
}
