import Foundation

extension PersistentStoreCoordinator {
    /// Reads or deletes persistent history (see ``PersistentHistoryChangeRequest``).
    ///
    /// - Throws: ``PersistenceError``: `.unsupportedRequest` when no store the request
    ///   concerns tracks history (``PersistentStoreOption/persistentHistoryTracking``);
    ///   `.invalidHistoryToken` for a token that names none of them (it is another store's);
    ///   `.historyTokenExpired` for a fetch after a token whose next transactions were deleted.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let stores = try historyStores(request.affectedStores)
        switch request.kind {
        case .fetch(after: let position):
            var transactions: [PersistentHistoryTransaction] = []
            for store in try stores.filter({ try takesPart($0, in: position, of: stores) }) {
                if case .token(let token?) = position, let number = token.transactionNumbers[store.identifier] {
                    let bounds = try store.historyBounds()
                    if number + 1 < bounds.firstKept {
                        throw PersistenceError(
                            .historyTokenExpired,
                            "the history after transaction \(number) of store \(store.identifier) was deleted: the token has expired. "
                                + "Read the history that is left (after a nil token), or start again from the store's current state")
                    }
                }
                transactions += try store.historyTransactions(after: position, authors: request.authors)
            }
            return .transactions(transactions)
        case .delete(before: let position):
            var count = 0
            let deleting = try stores.filter { try takesPart($0, in: position, of: stores) }
            // Refused before any store deletes: a read-only store's history stays, and so does
            // every other's.
            if let readOnly = deleting.first(where: \.isReadOnly) {
                throw PersistenceError(
                    .readOnlyStore,
                    "the store \(readOnly.identifier) is read-only\(readOnly.readOnlyReason.map { ": \($0)" } ?? ""): its history cannot be deleted")
            }
            for store in deleting {
                count += try store.deleteHistory(before: position)
            }
            return .deleted(count: count)
        }
    }

    /// The same as ``execute(_:)-(PersistentHistoryChangeRequest)``, entering the
    /// coordinator's queue synchronously: for a context.
    nonisolated func executeSynchronously(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try executor.runSynchronously {
            try self.assumeIsolated { try $0.execute(request) }
        }
    }

    /// The token of the last transaction of each store that tracks history (of `stores`, or of
    /// all the coordinator's): read the history after it to see only what comes next. `nil`
    /// when none of them tracks history (Core Data's `currentPersistentHistoryToken(fromStores:)`).
    public nonisolated func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) throws -> PersistentHistoryToken? {
        try executor.runSynchronously {
            try self.assumeIsolated { coordinator in
                let tracking = (stores ?? coordinator.persistentStores).filter(\.tracksPersistentHistory)
                guard !tracking.isEmpty else { return nil }
                var numbers: [String: Int64] = [:]
                for store in tracking { numbers[store.identifier] = try store.historyBounds().last }
                return PersistentHistoryToken(transactionNumbers: numbers)
            }
        }
    }

    /// The stores a history request reads: those it names, which must track history, or every
    /// store that does.
    private func historyStores(_ identifiers: [String]?) throws -> [PersistentStore] {
        let stores = persistentStores
        if let identifiers {
            return try identifiers.map { identifier in
                guard let store = stores.first(where: { $0.identifier == identifier }) else {
                    throw PersistenceError(.storeNotFound, "the store \(identifier) is not part of this coordinator")
                }
                guard store.tracksPersistentHistory else {
                    throw PersistenceError(
                        .unsupportedRequest, "\(store) does not record persistent history: add it with the option persistentHistoryTracking")
                }
                return store
            }
        }
        let tracking = stores.filter(\.tracksPersistentHistory)
        guard !tracking.isEmpty else {
            throw PersistenceError(
                .unsupportedRequest,
                "no store of this coordinator records persistent history: add the store with the option persistentHistoryTracking")
        }
        return tracking
    }

    /// Whether a request at `position` concerns `store`: with a token, the stores it names
    /// (a token that names none of `stores` is refused); with no token or a date, every store.
    private func takesPart(_ store: PersistentStore, in position: PersistentHistoryChangeRequest.Position, of stores: [PersistentStore]) throws -> Bool {
        guard case .token(let token?) = position else { return true }
        guard stores.contains(where: { token.transactionNumbers[$0.identifier] != nil }) else {
            throw PersistenceError(
                .invalidHistoryToken,
                "the history token \(token) names none of the stores that record history here "
                    + "(\(stores.map(\.identifier).joined(separator: ", "))): it was taken from another store")
        }
        return token.transactionNumbers[store.identifier] != nil
    }
}
