import Foundation

/// The connection the relational core (``RelationalSaveWriter``) runs a store's statements on:
/// what a SQL driver gives it. The SQLite store's connection runs each statement at once; the
/// PostgreSQL store's sends writes without waiting and has the server run them in order.
///
/// Statements come in the driver's ``dialect`` (its names and placeholders); values are bound,
/// never part of the text.
package protocol RelationalConnection: AnyObject {
    var dialect: SQLDialect { get }

    /// Runs, or queues, a statement that changes rows. When it changes none and `object` is
    /// given, `object` is among those ``finishWrites()`` returns: an optimistic-locking
    /// statement that found another version, or an insert that found the key taken.
    func write(_ sql: String, _ values: [SQLValue], object: ManagedObjectID?) throws

    /// Waits for every write sent; returns, and forgets, the objects whose write changed no row.
    func finishWrites() throws -> [ManagedObjectID]

    /// Runs a query after the writes sent so far, and hands each row's values to `body`, in the
    /// storage classes Core Data's encodings use (integers, doubles, text, bytes).
    func forEachRow(_ sql: String, _ values: [SQLValue], _ body: ([SQLValue]) throws -> Void) throws

    /// Writes a save's rows of one table (inserts, updates of the same columns, or deletes), or
    /// queues them, as ``write(_:_:object:)`` would write each with the batch's row statement: a
    /// row that changes nothing — a key taken, a version another save moved on — has its object
    /// among those ``finishWrites()`` returns. A driver that binds arrays writes them in few
    /// statements; others call ``writeRowByRow(_:)``.
    func write(_ batch: RelationalWriteBatch) throws

    /// Removes the links of `owner` in a join table (`ownColumn` holding its key) to every
    /// target but `keeping`: in one statement where the database binds arrays, or by reading the
    /// links first.
    func removeLinks(in table: String, ownColumn: String, otherColumn: String, of owner: Int64, keeping: [Int64]) throws
}
