import Foundation
@testable import Strata
import Testing

/// Statements put together from fragments number their parameters once, in order, in their
/// dialect; values never enter the SQL text.
@Suite struct SQLFragmentTests {
    @Test func parametersAreNumberedInTheOrderTheStatementHasThem() {
        let inner: SQLFragment = "x IN (\(bound: .integer(1)), \(bound: .integer(2)))"
        let joined = SQLFragment.joined(["\(bound: .text("a"))", "\(bound: .text("b"))"], separator: " OR ")
        let statement: SQLFragment = "SELECT 1 WHERE t = \(bound: .text("t")) AND (\(inner)) AND (\(joined)) LIMIT \(10)" + " OFFSET \(bound: .integer(5))"
        let postgres = SQLDialect.postgreSQL(schema: "s")
        #expect(statement.sql(in: postgres) == "SELECT 1 WHERE t = $1 AND (x IN ($2, $3)) AND ($4 OR $5) LIMIT 10 OFFSET $6")
        #expect(statement.sql(in: .sqlite) == "SELECT 1 WHERE t = ? AND (x IN (?, ?)) AND (? OR ?) LIMIT 10 OFFSET ?")
        #expect(statement.bindings == [.text("t"), .integer(1), .integer(2), .text("a"), .text("b"), .integer(5)])
        #expect(inner.sql(in: postgres, firstParameter: 4) == "x IN ($4, $5)")
    }

    /// A value that looks like SQL, or like a parameter, stays a bound value.
    @Test func valuesNeverBecomeSQL() {
        let hostile = "'; DROP TABLE ZBOOK; -- $1 ?"
        let fragment: SQLFragment = "ZTITLE = \(bound: .text(hostile))"
        #expect(fragment.sql(in: .postgreSQL(schema: "s")) == "ZTITLE = $1")
        #expect(fragment.bindings == [.text(hostile)])
    }
}
