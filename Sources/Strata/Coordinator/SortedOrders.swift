/// The sorted orders of one generation's atomic tables that fetches have needed: for a sort
/// (its descriptors) over an entity and the subentities a fetch includes, in the stores it
/// searches, every row's place. A generation never changes, so an order made once serves every
/// later fetch of that generation with the same sort: a page of 50 of 95,000 books sorted by
/// title is a slice, not a sort — what an ordered index gives the SQL stores — and a page with
/// a predicate walks the order until it is full. The next generation starts with none.
final class SortedOrders: Sendable {
    /// What an order is of.
    struct Key: Hashable, Sendable {
        /// The searched stores' identifiers, in the order the fetch visits them.
        let stores: [String]
        let entities: [String]
        let sort: [FetchSortDescriptor]
    }

    /// One row's place: its reference number, and which of the order's tables (store and
    /// entity, in the order of ``Order/tables``) holds it.
    struct Entry: Sendable {
        let reference: Int64
        let table: Int
    }

    /// The rows of ``Key`` in order.
    struct Order: Sendable {
        let tables: [(store: String, entity: String)]
        let entries: [Entry]
    }

    /// Past this many orders in one generation, all are let go and the next fetches make theirs
    /// again (a generation lives as long as a context reads it; its orders must not grow without
    /// bound).
    static let limit = 8
    private let orders = ThreadLocked<[Key: Order]>([:])

    /// The order of `key`, made by `make` if this generation has none yet. Two fetches asking at
    /// once may both make it; the same order either way.
    func order(for key: Key, make: () throws -> Order) rethrows -> Order {
        if let order = orders.withLock({ $0[key] }) { return order }
        let order = try make()
        orders.withLock { orders in
            if orders.count >= Self.limit { orders.removeAll() }
            orders[key] = order
        }
        return order
    }
}
