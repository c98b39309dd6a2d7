import Foundation

/// A value as SQLite stores it: one of its five storage classes.
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLiteValue {
    /// The integer, or `nil` for any other value.
    package var integerValue: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The storage class, for messages.
    var kind: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}
