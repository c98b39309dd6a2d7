import Foundation

/// What reading and deleting persistent history takes in SQL, once for both relational stores:
/// both keep Core Data's `ATRANSACTION` and `ACHANGE` tables, numbered by `Z_PRIMARYKEY`'s row
/// for the history transaction entity (`formats/coredata-persistent-history.md` §1). How each
/// store encodes a change's columns and tombstone is its own.
package enum RelationalHistory {
    /// The order a transaction's changes are recorded in, on both stores: by entity name, then
    /// reference number.
    package static func recordingOrder(_ a: ManagedObjectID, _ b: ManagedObjectID) -> Bool {
        (a.entityName, a.referenceNumber ?? 0) < (b.entityName, b.referenceNumber ?? 0)
    }

    /// Deletes the transactions before `position` (every one for a `nil` token) and their
    /// changes, in the connection's open transaction; returns how many transactions went. A
    /// token of another store deletes nothing.
    package static func removeTransactions(
        before position: PersistentHistoryChangeRequest.Position, storeIdentifier: String, connection: some RelationalConnection
    ) throws -> Int {
        let dialect = connection.dialect
        let condition: String
        var values: [SQLValue] = []
        switch position {
        case .token(nil):
            condition = dialect.alwaysTrue
        case .token(let token?):
            guard let number = token.transactionNumbers[storeIdentifier] else { return 0 }
            condition = "\(dialect.column("Z_PK")) < \(dialect.placeholder(1))"
            values = [.integer(number)]
        case .date(let date):
            condition = "\(dialect.column("ZTIMESTAMP")) < \(dialect.timestamp(dialect.placeholder(1)))"
            values = [.real(date.timeIntervalSinceReferenceDate)]
        }
        let (transactions, changes) = (dialect.table("ATRANSACTION"), dialect.table("ACHANGE"))
        try connection.write(
            "DELETE FROM \(changes) WHERE \(dialect.column("ZTRANSACTIONID")) IN (SELECT \(dialect.column("Z_PK")) FROM \(transactions) WHERE \(condition))",
            values, object: nil)
        var removed = 0
        try connection.forEachRow("DELETE FROM \(transactions) WHERE \(condition) RETURNING 1", values) { _ in removed += 1 }
        return removed
    }

    /// The number of the last transaction ever recorded (0 for none), and of the first one the
    /// history still holds (`last + 1` when it holds none), from one statement, which sees one
    /// state of the store.
    package static func bounds(connection: some RelationalConnection) throws -> (last: Int64, firstKept: Int64) {
        let dialect = connection.dialect
        let pk = dialect.column("Z_PK")
        var cells: [SQLValue] = []
        try connection.forEachRow(
            "SELECT \(dialect.column("Z_MAX")), (SELECT min(\(pk)) FROM \(dialect.table("ATRANSACTION"))) FROM \(dialect.table("Z_PRIMARYKEY")) "
                + "WHERE \(dialect.column("Z_ENT")) = \(dialect.placeholder(1))",
            [.integer(Int64(CoreDataHistorySchema.transactionEntity.number))]
        ) { cells = $0 }
        let last = cells.first?.integerValue ?? 0
        return (last, cells.count > 1 ? cells[1].integerValue ?? last + 1 : last + 1)
    }

    /// Makes history follow a migration's renumbering of entities (`numbers`: source entity
    /// number to destination), in the migration's transaction. As Core Data does when a migration
    /// removes an entity, history is cut up to the last transaction that touched an object of an
    /// entity that does not carry over; returns that transaction's number, or `nil` when nothing
    /// was cut. (The properties updates name stay as they were written: see
    /// docs/PersistentHistory.md.)
    package static func renumber(_ numbers: [Int: Int], connection: some RelationalConnection) throws -> Int64? {
        let dialect = connection.dialect
        let (entity, transaction) = (dialect.column("ZENTITY"), dialect.column("ZTRANSACTIONID"))
        let (changes, transactions) = (dialect.table("ACHANGE"), dialect.table("ATRANSACTION"))
        // Entity numbers are the model's, never a user's text: they are written as literals.
        let renumbered =
            numbers.isEmpty
            ? "NULL" : "CASE \(entity) " + numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " END"
        try connection.write("UPDATE \(changes) SET \(entity) = \(renumbered)", [], object: nil)
        var last: Int64?
        try connection.forEachRow("SELECT max(\(transaction)) FROM \(changes) WHERE \(entity) IS NULL", []) { last = $0.first?.integerValue }
        guard let last else { return nil }
        try connection.write("DELETE FROM \(changes) WHERE \(transaction) <= \(dialect.placeholder(1))", [.integer(last)], object: nil)
        try connection.write("DELETE FROM \(transactions) WHERE \(dialect.column("Z_PK")) <= \(dialect.placeholder(1))", [.integer(last)], object: nil)
        _ = try connection.finishWrites()
        return last
    }
}
