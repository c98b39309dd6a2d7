import Foundation

/// A value as the relational stores bind and read it: one of SQLite's five storage classes, in
/// which Core Data's encodings are written (PostgreSQL's columns hold the same four kinds).
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLValue {
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
