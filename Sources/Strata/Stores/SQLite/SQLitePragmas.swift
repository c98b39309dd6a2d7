import Foundation

/// Core Data's `NSSQLitePragmasOption` for the SQLite store: pragmas run on every connection the
/// store opens (its writer, its change watcher and each reader), as Core Data runs them on its
/// connections — `["synchronous": "OFF"]`, `["cache_size": 4000]`, `["secure_delete": true]`.
///
/// `synchronous` stays SQLite's default, `FULL`, unless set here: a save that has returned
/// survives a power cut. `NORMAL` (what GRDB sets in WAL mode) syncs the write-ahead log at
/// checkpoints only, one `fdatasync` less per save; a power cut may then lose the last saves,
/// never the file's consistency.
///
/// Two are refused with ``PersistenceError`` `.invalidOption`, because the store is built on
/// what they would change: a `journal_mode` other than `WAL` (reads pin snapshots that a
/// rollback journal would block writers behind; Core Data stores default to WAL too) and
/// `locking_mode` (an exclusive lock would shut the store's readers out).
package struct SQLitePragmas: Sendable {
    /// `PRAGMA name = value` statements, checked.
    let statements: [String]

    /// None.
    package init() {
        statements = []
    }

    init(option: (any Sendable)?) throws {
        guard let option else {
            statements = []
            return
        }
        guard let pragmas = option as? [String: any Sendable] else {
            throw PersistenceError(.invalidOption, "the SQLite pragmas option takes a dictionary of pragma names and values, not \(type(of: option))")
        }
        statements = try pragmas.keys.sorted().compactMap { name -> String? in
            let value = try Self.literal(pragmas[name]!, of: name)
            guard name.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil else {
                throw PersistenceError(.invalidOption, "'\(name)' is not a SQLite pragma name")
            }
            switch name.lowercased() {
            case "journal_mode" where value.uppercased() != "WAL":
                throw PersistenceError(
                    .invalidOption,
                    "the SQLite store keeps its file in WAL mode (its reads pin snapshots, which a rollback journal would block writes behind): journal_mode \(value) is refused"
                )
            case "journal_mode":
                return nil  // WAL: the store sets it itself (a read-only connection could not)
            case "locking_mode":
                throw PersistenceError(.invalidOption, "the SQLite store opens several connections to its file: locking_mode is refused")
            default:
                return "PRAGMA \(name) = \(value)"
            }
        }
    }

    /// `value` as SQL text a pragma takes: a number, or a keyword or name (letters, digits,
    /// `_`, `-`, `.`), nothing that could end the statement.
    private static func literal(_ value: any Sendable, of name: String) throws -> String {
        switch value {
        case let value as Bool: return value ? "1" : "0"
        case let value as Int: return String(value)
        case let value as Int64: return String(value)
        case let value as Int32: return String(value)
        case let value as Double where value.isFinite: return String(value)
        case let value as String where value.range(of: "^[A-Za-z0-9_.+-]+$", options: .regularExpression) != nil: return value
        default:
            throw PersistenceError(.invalidOption, "the SQLite pragma \(name) has a value SQLite's pragmas do not take: \(value)")
        }
    }

    /// Runs the pragmas on `connection`.
    package func apply(to connection: SQLiteConnection) throws {
        for statement in statements { _ = try connection.scalar(statement) }
    }
}
