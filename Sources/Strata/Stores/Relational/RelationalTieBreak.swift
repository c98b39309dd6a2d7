/// How a SQL store orders the rows a fetch's sort descriptors leave tied, as the context orders
/// them when it sorts itself: by entity, in the order of the fetch's entities (an entity, then
/// its subentities), then by reference number. Without it, a window across a hierarchy (one
/// table, Core Data's layout) would cut ties by reference alone and give other objects than the
/// same fetch on an atomic store, or on the same store once an unsaved change is in play.
package enum RelationalTieBreak {
    /// The `ORDER BY` terms after the sort descriptors' for rows of `members` (aliased `t`):
    /// the reference alone for one entity; for several, a `CASE` on the entity column first.
    /// The numbers are the mapping's, written out: no value from outside.
    package static func terms(_ members: [CoreDataTableMapping.Entity], dialect: SQLDialect) -> [String] {
        let reference = dialect.column("Z_PK", of: "t")
        guard members.count > 1 else { return [reference] }
        let cases = members.enumerated().map { "WHEN \($0.element.number) THEN \($0.offset)" }.joined(separator: " ")
        return ["CASE \(dialect.column("Z_ENT", of: "t")) \(cases) END", reference]
    }
}
