import PostgresNIO

/// Indexes a store made before text was indexed in byte order.
extension PostgresStore {
    /// Drops those of the model's text indexes that are in another collation than `"C"`, so
    /// that the model's statements, which follow, make them again in byte order: stores made
    /// before text indexes were in byte order have them in the database's collation, which
    /// serves neither the store's sorted pages nor, since lookups compare in byte order, its
    /// lookups. Runs in the transaction that adds the store, under the schema's lock; once
    /// rebuilt, an index is left alone at the next open.
    func dropIndexesOutOfByteOrder(_ connection: PostgresConnection) throws {
        let names = schema.textIndexNames
        guard !names.isEmpty else { return }
        var bindings = PostgresBindings()
        bindings.append(location.schema)
        bindings.append(names)
        let stale = try connection.rows(
            "SELECT c.relname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2) "
                + "AND EXISTS (SELECT 1 FROM unnest(i.indcollation::oid[]) AS k(used) WHERE k.used <> 0 "
                + "AND k.used <> (SELECT oid FROM pg_catalog.pg_collation WHERE collname = 'C' AND collnamespace = 'pg_catalog'::regnamespace))",
            bindings: bindings, logger: logger)
        for row in stale {
            let name = try row.decode(String.self)
            logger.notice("rebuilding an index in byte order", metadata: ["index": "\(name)"])
            try connection.run("DROP INDEX \(schema.table(name))", logger: logger)
        }
    }
}
