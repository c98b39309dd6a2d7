import Foundation

/// A ``SQLiteConnection`` as the relational core uses it: each write runs at once, on the
/// connection's cached prepared statement for its text.
package final class SQLiteRelationalConnection: RelationalConnection {
    let connection: SQLiteConnection
    package let dialect = SQLDialect.sqlite
    private var unchanged: [ManagedObjectID] = []
    /// The last statement written, kept beside the connection's cache: a save writes row after
    /// row with the same text (the same string, compared by identity first), and finding it
    /// again should cost no hash of the text per row.
    private var last: (sql: String, statement: SQLiteStatement)?

    package init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    package func write(_ sql: String, _ values: [SQLValue], object: ManagedObjectID?) throws {
        let statement: SQLiteStatement
        if let last, last.sql == sql {
            statement = last.statement
        } else {
            statement = try connection.statement(sql)
            last = (sql, statement)
        }
        try statement.run(values)
        if let object, connection.changes == 0 { unchanged.append(object) }
    }

    package func finishWrites() throws -> [ManagedObjectID] {
        defer { unchanged.removeAll() }
        return unchanged
    }

    package func forEachRow(_ sql: String, _ values: [SQLValue], _ body: ([SQLValue]) throws -> Void) throws {
        try connection.statement(sql).forEachRow(values) { statement in
            try body((0..<statement.columnCount).map(statement.value))
        }
    }

    /// SQLite binds no arrays, and a prepared statement per row costs no round trip.
    package func write(_ batch: RelationalWriteBatch) throws {
        try writeRowByRow(batch)
    }

    /// SQLite binds no arrays: the links are read, and the ones not kept deleted one by one.
    package func removeLinks(in table: String, ownColumn: String, otherColumn: String, of owner: Int64, keeping: [Int64]) throws {
        var stale: Set<Int64> = []
        try connection.statement("SELECT \(otherColumn) FROM \(table) WHERE \(ownColumn) = ?").forEachRow([.integer(owner)]) {
            _ = stale.insert($0.int64(0))
        }
        stale.subtract(keeping)
        let remove = try connection.statement("DELETE FROM \(table) WHERE \(ownColumn) = ? AND \(otherColumn) = ?")
        for key in stale { try remove.run([.integer(owner), .integer(key)]) }
    }
}
