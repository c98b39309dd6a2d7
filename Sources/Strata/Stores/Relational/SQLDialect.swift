import Foundation

/// What differs between the SQL of the relational stores, for the code they share (the predicate
/// compiler ``SQLFetchCondition``, the save writer ``RelationalSaveWriter``): how a table and a
/// column are named, how a parameter is written, what the database can compute as Strata's
/// evaluator does, and how a statement keeps a row it depends on. SQLite is the SQLite store's; PostgreSQL is the PostgreSQL store's (module
/// `StrataPostgres`), whose names are always quoted and whose tables live in a schema.
package struct SQLDialect: Sendable {
    /// A table's name in a statement.
    package let table: @Sendable (String) -> String
    /// A column's name in a statement.
    package let column: @Sendable (String) -> String
    /// Whether Strata's own SQL functions (`strata_compare`, `strata_sum`, `strata_avg`) are
    /// there: SQLite registers them on its connections; PostgreSQL has none, so string operators
    /// with options, and sums and averages, are left to the context there.
    package let hasEvaluatorFunctions: Bool
    /// What follows a text column compared by order, so that it orders as the evaluator does
    /// (by code point): nothing in SQLite (BINARY), `COLLATE "C"` in PostgreSQL.
    package let textOrdering: String
    /// A condition that always holds, and one that never does.
    package let alwaysTrue: String
    package let alwaysFalse: String
    /// Whether a comparison's result is a number (SQLite), so that `(a <> 0) = ?` compares
    /// truths; PostgreSQL's is a boolean, compared with `CASE`.
    package let comparisonsAreNumbers: Bool
    /// The `n`th parameter of a statement (from 1): `?` in SQLite, `$n` in PostgreSQL.
    package let placeholder: @Sendable (Int) -> String
    /// What a `SELECT` of a row appends to keep that row from being deleted until the
    /// transaction ends (PostgreSQL's `FOR KEY SHARE`, what a foreign key takes); `nil` where
    /// a write transaction excludes every other writer anyway (SQLite).
    package let keepsRowClause: String?
    /// A timestamp column's value for a parameter bound as seconds since 2001-01-01 (Core
    /// Data's reference date): the seconds themselves in SQLite, whose history stores them so;
    /// a `timestamptz` in PostgreSQL.
    package let timestamp: @Sendable (String) -> String
    /// Whether an ordering must say where NULL goes to put it first ascending and last
    /// descending, as the evaluator does (PostgreSQL's default is the other way; SQLite's is that).
    package let ordersNullsExplicitly: Bool
    /// Whether `min` and `max` take bytes (UUIDs): SQLite's do, PostgreSQL has none for `bytea`.
    package let aggregatesBytes: Bool
    /// The comparison true when two values differ, NULL being a value: SQLite's `IS NOT`,
    /// the standard's `IS DISTINCT FROM` in PostgreSQL. With spaces around it.
    package let isDistinctFrom: String
    /// The type of a 64-bit integer column of a table the store makes for itself (SQLite's
    /// `INTEGER` makes a primary key the row's own key).
    package let integerType: String

    package static let sqlite = SQLDialect(
        table: { $0 }, column: { $0 }, hasEvaluatorFunctions: true, textOrdering: "", alwaysTrue: "1", alwaysFalse: "0",
        comparisonsAreNumbers: true, placeholder: { _ in "?" }, keepsRowClause: nil,
        timestamp: { $0 }, ordersNullsExplicitly: false, aggregatesBytes: true,
        isDistinctFrom: " IS NOT ", integerType: "INTEGER")

    /// PostgreSQL, with the store's tables in `schema`.
    package static func postgreSQL(schema: String) -> SQLDialect {
        let quoted = quotedName
        return SQLDialect(
            table: { quoted(schema) + "." + quoted($0) }, column: quoted, hasEvaluatorFunctions: false, textOrdering: " COLLATE \"C\"",
            alwaysTrue: "TRUE", alwaysFalse: "FALSE", comparisonsAreNumbers: false, placeholder: { "$\($0)" }, keepsRowClause: "FOR KEY SHARE",
            timestamp: { "to_timestamp(\($0) + 978307200)" }, ordersNullsExplicitly: true, aggregatesBytes: false,
            isDistinctFrom: " IS DISTINCT FROM ", integerType: "bigint")
    }

    /// `name` as a quoted identifier: any name, however hostile, stays one identifier.
    @Sendable package static func quotedName(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `count` parameters from the `first`, separated by commas.
    package func placeholders(_ count: Int, from first: Int = 1) -> String {
        (first..<(first + count)).map(placeholder).joined(separator: ", ")
    }

    /// The attribute types whose stored values order in SQL as the evaluator orders them (with
    /// ``orderTerm(_:isText:ascending:)``): numbers, Booleans, dates, strings by code point,
    /// UUIDs by their bytes as by their text.
    package static let sortableTypes: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float, .boolean, .date, .string, .uuid]

    /// An `ORDER BY` term that orders as the evaluator does: text by code point, no value
    /// first ascending and last descending (SQLite's own order; PostgreSQL's is asked for).
    package func orderTerm(_ column: String, isText: Bool, ascending: Bool) -> String {
        let ordered = isText ? column + textOrdering : column
        if ordersNullsExplicitly { return ordered + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST") }
        return ordered + (ascending ? " ASC" : " DESC")
    }

    /// `alias.column`.
    package func column(_ name: String, of alias: String) -> String {
        alias + "." + column(name)
    }
}
