import PostgresNIO

/// Planner statistics after a bulk save: PostgreSQL's advice for populating a database is to
/// run `ANALYZE` once the data is in, and autovacuum gets there only at its next round (a
/// minute by default). Until then the planner guesses: right after importing the Library data
/// set (100,000 objects), walking every author's books took 8.8–9.2 s instead of 1.2 s.
extension PostgresStore {
    /// The fewest rows a save adds to a table before its statistics are looked at: below it the
    /// planner's guesses cost little, and a save pays no catalog query.
    static let rowsWorthStatistics = 1_000

    /// Analyzes those of the tables a committed save added at least ``rowsWorthStatistics``
    /// rows to that have no statistics (`reltuples` -1) or at least doubled in size since
    /// theirs (`relpages`): every table of an import, and of one made in many saves, a doubling
    /// at a time (ten saves of 10,000 objects analyze after the first, second, fourth and eighth).
    /// A table its statistics still describe is left to autovacuum. Runs after the commit on a
    /// pooled connection; the save has succeeded whatever happens here, so a failure is logged,
    /// not thrown. A store working inside a migration's transaction (a pinned pool) leaves it to
    /// the migration, which analyzes every table once it commits: a failed `ANALYZE` there would
    /// abort the migration's transaction.
    func analyzeGrownTables(_ added: [String: Int]) {
        let grown = added.filter { $0.value >= Self.rowsWorthStatistics }
        guard !grown.isEmpty, !pool.isPinned else { return }
        do {
            try pool.withConnection { connection in
                var bindings = PostgresBindings()
                bindings.append(location.schema)
                bindings.append(Array(grown.keys))
                let stale = try connection.rows(
                    "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE n.nspname = $1 AND c.relname = ANY($2) AND (c.reltuples < 0 "
                        + "OR pg_catalog.pg_relation_size(c.oid) >= 2 * c.relpages::bigint * current_setting('block_size')::bigint)",
                    bindings: bindings, logger: logger)
                for row in stale {
                    let table = try row.decode(String.self)
                    logger.debug("analyzing a table a save grew", metadata: ["table": "\(table)", "added": "\(grown[table] ?? 0)"])
                    try connection.run("ANALYZE \(schema.table(table))", logger: logger)
                }
            }
        } catch {
            logger.warning("cannot update the planner's statistics after a bulk save", metadata: ["error": "\(error)"])
        }
    }
}
