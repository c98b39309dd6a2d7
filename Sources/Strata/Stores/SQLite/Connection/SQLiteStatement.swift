import CSQLite
import Foundation

/// A prepared statement of one ``SQLiteConnection``, reused: bind, step through the rows, reset.
/// Used only by the connection's owner, as the connection is.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    package let sql: String

    init(connection: OpaquePointer, sql: String) throws {
        var handle: OpaquePointer?
        let result = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard result == SQLITE_OK, let handle else {
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears the last run and binds `values` to the parameters, in order.
    package func reset(binding values: [SQLValue] = []) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    package func bind(_ value: SQLValue, at index: Int32) throws {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
        case .real(let number): result = sqlite3_bind_double(handle, index, number)
        case .text(let text):
            // By length, not up to the first NUL: a string may hold one, and all of it is stored.
            var text = text
            result = text.withUTF8 { bytes in
                let start = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!  // never read when empty
                return sqlite3_bind_text64(
                    handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), strata_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        case .blob(let data):
            result = data.withUnsafeBytes { bytes in
                // An empty blob is still a blob, not NULL: SQLite needs a non-NULL pointer for it.
                sqlite3_bind_blob64(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count), strata_sqlite_transient())
            }
        }
        guard result == SQLITE_OK else { throw error() }
    }

    /// Runs the statement one step: `true` with a row to read, `false` when done.
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error()
        }
    }

    /// Runs a statement that returns no rows.
    package func run(_ values: [SQLValue] = []) throws {
        try reset(binding: values)
        while try step() {}
    }

    /// Calls `body` with each row of the statement run with `values`.
    package func forEachRow(_ values: [SQLValue] = [], _ body: (SQLiteStatement) throws -> Void) throws {
        try reset(binding: values)
        defer { sqlite3_reset(handle) }
        while try step() { try body(self) }
    }

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// A `TEXT` column's bytes, for `body` to read while the statement stays on its row;
    /// `nil` for a value of any other storage class.
    package func withText<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(handle, column) else { return nil }
        return body(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// A column's value in the storage class SQLite holds it in.
    package func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let bytes = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func error() -> SQLiteError {
        SQLiteError(extendedCode: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
}
