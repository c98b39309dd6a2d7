import Foundation

/// SQL text with its parameters in place. The relational core puts statements together from
/// fragments (a fetch condition, an assignment, an entity's scope) and numbers the parameters
/// once, when the whole statement is written in its dialect (`?` in SQLite, `$1`, `$2`… in
/// PostgreSQL): no fragment needs to know what comes before it, and no finished statement is
/// rewritten by scanning it.
///
/// Interpolating a `String` adds SQL text Strata wrote (names, operators, other statements),
/// never a value; a value is added with `\(bound: value)` and becomes a parameter:
///
/// ```swift
/// let scope: SQLFragment = "\(dialect.column("Z_ENT", of: "t")) = \(bound: .integer(3)) AND (\(condition.fragment))"
/// scope.sql(in: .postgreSQL(schema: "app"))   // "t"."Z_ENT" = $1 AND (… $2 …)
/// ```
package struct SQLFragment: Sendable, ExpressibleByStringInterpolation {
    fileprivate enum Part: Sendable {
        case text(String)
        case parameter(SQLValue)
    }

    fileprivate var parts: [Part]

    package init(stringLiteral text: String) {
        parts = [.text(text)]
    }

    package init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    /// Builds a fragment from literal SQL, SQL text, other fragments and bound values.
    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [Part] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(2 * interpolationCount + 1)
        }

        package mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { parts.append(.text(literal)) }
        }

        /// SQL text Strata wrote: a name, an operator, a clause. Never a value.
        package mutating func appendInterpolation(_ sql: String) {
            parts.append(.text(sql))
        }

        /// A number written into the SQL (an entity number, a flag): Strata's own, never a value
        /// of the user's.
        package mutating func appendInterpolation(_ number: some BinaryInteger) {
            parts.append(.text(String(number)))
        }

        package mutating func appendInterpolation(_ fragment: SQLFragment) {
            parts += fragment.parts
        }

        /// A value, bound as a parameter.
        package mutating func appendInterpolation(bound value: SQLValue) {
            parts.append(.parameter(value))
        }
    }

    /// The values of the parameters, in order.
    package var bindings: [SQLValue] {
        // One allocation: growing by appends took one per doubling, at every statement built.
        var values: [SQLValue] = []
        values.reserveCapacity(parts.count)
        for case .parameter(let value) in parts { values.append(value) }
        return values
    }

    /// The SQL in `dialect`, its parameters numbered from `first` (when other parameters of the
    /// statement come before the fragment's).
    package func sql(in dialect: SQLDialect, firstParameter first: Int = 1) -> String {
        var sql = ""
        // One allocation for the text, not one per doubling as it grows (placeholders: `?`, `$n`).
        sql.reserveCapacity(parts.reduce(0) { length, part in
            if case .text(let text) = part { length + text.utf8.count } else { length + 6 }
        })
        var number = first
        for part in parts {
            switch part {
            case .text(let text):
                sql += text
            case .parameter:
                sql += dialect.placeholder(number)
                number += 1
            }
        }
        return sql
    }

    /// One fragment after the other.
    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var result = lhs
        result.parts += rhs.parts
        return result
    }

    /// `fragments` one after another, with `separator` between them.
    package static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment(stringLiteral: "")
        result.parts = []
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.parts.append(.text(separator)) }
            result.parts += fragment.parts
        }
        return result
    }
}
