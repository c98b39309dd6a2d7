import CSQLite
import Foundation

/// What SQLite said when a call failed: its result code (extended), its message and the SQL.
/// The SQLite store turns it into a ``StoreError`` that names the file (``storeError(file:)``).
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); its low byte is the primary code.
    package let extendedCode: Int32
    package let message: String
    package let sql: String?

    package init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    package var code: Int32 { extendedCode & 0xFF }

    /// A `UNIQUE` index or a primary key refused a row (`SQLITE_CONSTRAINT_UNIQUE`, 2067, and
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`, 1555: macros Swift does not import).
    package var isUniqueConstraint: Bool { extendedCode == 2067 || extendedCode == 1555 }

    package var description: String {
        "SQLite error \(extendedCode): \(message)" + (sql.map { " (in \($0))" } ?? "")
    }

    /// The store error a user gets: what kind of failure, on which file, and what to do.
    package func storeError(file: URL) -> StoreError {
        switch code {
        case SQLITE_NOTADB:
            StoreError(.notAStore, file: file, "the file is not a SQLite database (\(message))")
        case SQLITE_CORRUPT:
            StoreError(.corruptFile, file: file, "the SQLite database is damaged (\(message)); restore it from a backup")
        case SQLITE_BUSY, SQLITE_LOCKED:
            StoreError(
                .storeInUse, file: file,
                "another connection held the database locked past the timeout (\(message)); try again, or raise the timeout option")
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            StoreError(.unreadable, file: file, "the database cannot be opened (\(message))")
        case SQLITE_IOERR:
            StoreError(.unreadable, file: file, "an I/O error met the database (\(message))")
        case SQLITE_CONSTRAINT:
            // The store checks uniqueness itself before it writes; one of the file's own
            // constraints (an index on a relationship, a foreign writer's trigger) refused it.
            StoreError(.writeFailed, file: file, "a constraint of the database refused the save (\(message)); nothing of it was kept")
        case SQLITE_FULL, SQLITE_READONLY:
            StoreError(.writeFailed, file: file, "the database cannot be written (\(message)); nothing of this save was kept")
        default:
            StoreError(.corruptFile, file: file, description)
        }
    }
}
