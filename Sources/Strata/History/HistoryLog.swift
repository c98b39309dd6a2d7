import Foundation

/// The persistent history of a store whose objects the coordinator holds whole (the binary and
/// in-memory stores, and atomic stores of your own): the transactions kept, oldest first, and
/// the last numbers handed out, which are never handed out again. The binary store writes it
/// into its file; the others keep it for the life of the store.
final class HistoryLog: Sendable {
    struct State: Sendable, Hashable {
        var transactions: [PersistentHistoryTransaction] = []
        var lastTransaction: Int64 = 0
        var lastChange: Int64 = 0
    }

    private let state = ThreadLocked(State())

    /// What the log holds now.
    var current: State {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Adds a transaction the coordinator just recorded.
    func append(_ transaction: PersistentHistoryTransaction) {
        state.withLock { state in
            state.transactions.append(transaction)
            state.lastTransaction = max(state.lastTransaction, transaction.transactionNumber)
            state.lastChange = max(state.lastChange, transaction.changes.map(\.changeID).max() ?? 0)
        }
    }

    /// The transactions after `position` whose author `authors` keeps.
    func transactions(
        after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter, store: String
    ) -> [PersistentHistoryTransaction] {
        state.withLock { $0.transactions }.filter { transaction in
            switch position {
            case .token(let token?): if let number = token.transactionNumbers[store], transaction.transactionNumber <= number { return false }
            case .token(nil): break
            case .date(let date): if transaction.timestamp <= date { return false }
            }
            switch authors {
            case .any: return true
            case .only(let author): return transaction.author == author
            case .excluding(let author): return transaction.author != author
            }
        }
    }

    /// The log without the transactions before `position` (every one for a `nil` token), and
    /// how many that leaves out; the log itself is unchanged until the caller sets it.
    func deleting(before position: PersistentHistoryChangeRequest.Position, store: String) -> (state: State, removed: Int) {
        var state = current
        let before = state.transactions.count
        state.transactions.removeAll { transaction in
            switch position {
            case .token(nil): true
            case .token(let token?): token.transactionNumbers[store].map { transaction.transactionNumber < $0 } ?? false
            case .date(let date): transaction.timestamp < date
            }
        }
        return (state, before - state.transactions.count)
    }

    /// The last transaction's number, and the first one kept (`last + 1` when none is).
    var bounds: (last: Int64, firstKept: Int64) {
        state.withLock { state in
            (state.lastTransaction, state.transactions.first?.transactionNumber ?? state.lastTransaction + 1)
        }
    }

    /// A store's history after a migration that maps entities by `renames` (source name →
    /// destination name, for every entity that carries over): changes name their objects by the
    /// new names, and when an entity history names does not carry over, history is cut up to
    /// the last transaction that touched it, as Core Data cuts it.
    static func migrated(_ transactions: [PersistentHistoryTransaction], renames: [String: String]) -> [PersistentHistoryTransaction] {
        let lastGone = transactions.last { transaction in
            transaction.changes.contains { renames[$0.changedObjectID.entityName] == nil }
        }?.transactionNumber
        return transactions.compactMap { transaction in
            if let lastGone, transaction.transactionNumber <= lastGone { return nil }
            let changes = transaction.changes.map { change in
                let id = change.changedObjectID
                guard let name = renames[id.entityName], name != id.entityName, let store = id.persistentStoreIdentifier,
                    let reference = id.referenceNumber
                else { return change }
                return PersistentHistoryChange(
                    changeID: change.changeID, changedObjectID: ManagedObjectID(entityName: name, key: .permanent(store: store, reference: reference)),
                    changeType: change.changeType, updatedProperties: change.updatedProperties, tombstone: change.tombstone,
                    transactionNumber: change.transactionNumber)
            }
            return PersistentHistoryTransaction(
                transactionNumber: transaction.transactionNumber, storeID: transaction.storeID, timestamp: transaction.timestamp,
                author: transaction.author, contextName: transaction.contextName, bundleID: transaction.bundleID,
                processID: transaction.processID, changes: changes)
        }
    }
}
