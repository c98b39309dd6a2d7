import Foundation
import Logging
import PostgresNIO
import Strata

/// Migration in place: every step in one transaction of the database (PostgreSQL's DDL is
/// transactional), under the schema's advisory lock, so that servers starting at once with a
/// new model migrate once and the others find the store migrated. An error, a cancellation, a
/// crash or a lost connection leaves the store exactly as it was.
///
/// Each step sets the old model's tables aside in a schema of their own, creates the new
/// model's tables, and copies every object through the step's mapping
/// (``IncrementalStoreMigration``: inferred and custom mappings alike, each object keeping its
/// reference number, so its URI), then drops the old tables. `Z_PRIMARYKEY` is rebuilt for the
/// new entities, with every hierarchy's counter above any number handed out before.
///
/// A server still on the old model cannot write to the migrated tables: the migration holds the
/// schema's advisory lock exclusively (a save holds it shared, so each waits for the other) and
/// changes `Z_MODEL`, which every save checks last, rolling back what it wrote. Before it starts, the migration tells every server listening to let
/// go of the generations no context reads; it waits (at most ``lockTimeout``) for the reads
/// still open on the old tables to end. See `docs/PostgresStore.md` for rollouts.
extension PostgresStore {
    /// How long a migration waits for other servers' transactions on the tables it changes.
    static let lockTimeout = "60s"

    package static func migrateStore(
        at url: URL, through steps: [MigrationStep], fillsMissingValues: Bool, backup: URL?, isCancelled: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> [MigrationReport] {
        guard backup == nil else {
            throw PersistenceError(.incompatibleStore, "a PostgreSQL store is not a file: back it up with the server's tools (pg_dump), not a backup file")
        }
        guard let last = steps.last else { return [] }
        do {
            return try migrate(at: url, through: steps, to: last, fillsMissingValues: fillsMissingValues, isCancelled: isCancelled, progress: progress)
        } catch let error as PostgresStoreError where error.sqlState == "55P03" {
            throw PostgresStoreError(
                .server, sqlState: error.sqlState,
                "the migration waited \(lockTimeout) for other servers' reads of the old tables, which did not end; the store is unchanged. "
                    + "Stop the servers still on the old model (or end their long-lived contexts) and migrate again")
        }
    }

    private static func migrate(
        at url: URL, through steps: [MigrationStep], to last: MigrationStep, fillsMissingValues: Bool, isCancelled: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> [MigrationReport] {
        try withOneOffConnection(to: url) { connection, location, logger in
            // Other servers let go of the generations no context reads: each holds the tables it
            // read (a transaction open), which the migration would wait for.
            if let (metadata, change) = try storedMetadata(connection, location, logger: logger),
                let uuid = metadata[PersistentStore.storeUUIDKey]?.stringValue
            {
                try connection.run("SELECT pg_notify($1, $2)", [.text(changeChannel(ofStore: uuid)), .text("\(change) migration")], logger: logger)
            }
            let stepReports: [MigrationReport] = try connection.transaction(logger: logger) {
                try lockSchema(location.schema, connection, logger: logger)
                try connection.run("SET LOCAL lock_timeout = '\(lockTimeout)'", logger: logger)
                guard var metadata = try storedMetadata(connection, location, logger: logger)?.metadata else {
                    throw PostgresStoreError(.notAStore, "\(location) holds no store")
                }
                // Another server migrated it while this one waited for the lock.
                if last.destination.isConfiguration(nil, compatibleWithStoreMetadata: metadata) { return [] }
                var reports: [MigrationReport] = []
                for step in steps {
                    let run = MigrationRun(
                        step: step, connection: connection, location: location, logger: logger, fillsMissingValues: fillsMissingValues,
                        isCancelled: isCancelled, progress: progress)
                    reports.append(try run.migrate(metadata: &metadata))
                }
                var stored = metadata
                stored[PersistentStore.storeUUIDKey] = nil
                try connection.run(
                    "UPDATE \(PostgresSQL.qualified(location.schema, "Z_METADATA")) SET \"Z_METADATA\" = $1, \"Z_MODEL\" = $2",
                    [.text(try metadataJSON(stored)), .text(last.destination.versionChecksum.base64EncodedString())], logger: logger)
                logger.info("migrated a PostgreSQL store in place", metadata: ["store": "\(location)", "steps": "\(steps.map(\.name))"])
                return reports
            }
            if !stepReports.isEmpty { analyzeMigratedTables(of: last.destination, connection, location, logger: logger) }
            return stepReports
        }
    }

    /// Every table of the migrated store was made and filled by the migration, so none has
    /// planner statistics until autovacuum's next round: it analyzes them once committed (a
    /// failure is logged: the migration has succeeded). Saves inside the migration's
    /// transaction leave this to it (``analyzeGrownTables(_:)``).
    private static func analyzeMigratedTables(of model: ManagedObjectModel, _ connection: PostgresConnection, _ location: PostgresLocation, logger: Logger) {
        let schema = CoreDataTableMapping(model: model).schema
        do {
            for table in schema.tables.map(\.name) + schema.joinTables.map(\.name) {
                try connection.run("ANALYZE \(PostgresSQL.qualified(location.schema, table))", logger: logger)
            }
        } catch {
            logger.warning("cannot update the planner's statistics after a migration", metadata: ["error": "\(error)"])
        }
    }

    /// One step's work in the migration's transaction.
    private struct MigrationRun {
        let step: MigrationStep
        let connection: PostgresConnection
        let location: PostgresLocation
        let logger: Logger
        let fillsMissingValues: Bool
        let isCancelled: @Sendable () -> Bool
        let progress: @Sendable (MigrationProgress) -> Void

        func migrate(metadata: inout [String: MetadataValue]) throws -> MigrationReport {
            try step.source.checkWroteStore(withMetadata: metadata)
            let uuid = metadata[PersistentStore.storeUUIDKey] ?? .string("")
            let table = { (name: String) in PostgresSQL.qualified(location.schema, name) }
            // A save of a server on the old model, waiting for the schema's lock, finds it changed.
            try connection.run(
                "UPDATE \(table("Z_METADATA")) SET \"Z_MODEL\" = $1", [.text(step.destination.versionChecksum.base64EncodedString())], logger: logger)

            let aside = "zstrata_migrating_" + PostgresSchema.stableHash(location.schema)
            let sourceMapping = CoreDataTableMapping(model: step.source)
            try setAside(sourceMapping.schema.tables.map(\.name) + sourceMapping.schema.joinTables.map(\.name), in: aside)
            let sourceNext = try nextReferences(of: sourceMapping)

            // The two stores work in this transaction; they hold their coordinators weakly.
            let coordinators = (
                PersistentStoreCoordinator(managedObjectModel: step.source), PersistentStoreCoordinator(managedObjectModel: step.destination)
            )
            defer { withExtendedLifetime(coordinators) {} }
            let pool = PostgresConnectionPool(pinned: connection, logger: logger)
            var asideLocation = location
            asideLocation.schema = aside
            let source = try PostgresStore(
                coordinator: coordinators.0, configurationName: nil, url: nil, options: [PersistentStoreOption.readOnly: true],
                location: asideLocation, pool: pool)
            source.replaceMetadata([PersistentStore.storeUUIDKey: uuid])
            let destination = try PostgresStore(
                coordinator: coordinators.1, configurationName: nil, url: nil, options: [:], location: location, pool: pool)
            var migrated = MigrationManager.migratedMetadata(from: metadata, to: step.destination, renames: step.mapping.entityRenames)
            migrated[PersistentStore.storeUUIDKey] = uuid
            destination.replaceMetadata(migrated)

            for statement in try destination.schema.modelTables() { try connection.run(statement, logger: logger) }
            // Persistent history's counter (16001) stays: its keys are never reused.
            try connection.run(
                "DELETE FROM \(table("Z_PRIMARYKEY")) WHERE \"Z_ENT\" < $1", [.integer(Int64(PostgresStore.historyChangeEntity.number))],
                logger: logger)
            for entity in destination.schema.entityRows {
                try connection.run(
                    "INSERT INTO \(table("Z_PRIMARYKEY")) (\"Z_ENT\", \"Z_NAME\", \"Z_SUPER\", \"Z_MAX\") VALUES ($1, $2, $3, 0)",
                    [.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber))], logger: logger)
            }
            let (report, next) = try IncrementalStoreMigration.copy(
                step, from: source, to: destination, sourceNextReferences: sourceNext, fillsMissingValues: fillsMissingValues,
                isCancelled: isCancelled, progress: progress)
            for (root, next) in next {
                guard let number = destination.mapping.entities[root]?.number else { continue }
                try connection.run(
                    "UPDATE \(table("Z_PRIMARYKEY")) SET \"Z_MAX\" = $1 WHERE \"Z_ENT\" = $2", [.integer(next - 1), .integer(Int64(number))],
                    logger: logger)
            }
            try connection.run("DROP SCHEMA \(PostgresSQL.quoted(aside)) CASCADE", logger: logger)
            try renumberHistory(from: sourceMapping, to: destination.mapping)
            metadata = migrated
            return report
        }

        /// Moves the old model's tables (with their indexes) into a schema of their own, out of
        /// the way of the new model's tables of the same names.
        private func setAside(_ tables: [String], in aside: String) throws {
            let present = Set(
                try connection.rows("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1", [.text(location.schema)], logger: logger)
                    .map { row -> String in
                        guard case .text(let name) = try row.makeRandomAccess()[0].value(as: .text) else { return "" }
                        return name
                    })
            let missing = tables.filter { !present.contains($0) }
            guard missing.isEmpty else {
                throw PostgresStoreError(
                    .notAStore, "\(location) lacks tables the model that wrote it has: \(missing.joined(separator: ", "))")
            }
            try connection.run("CREATE SCHEMA \(PostgresSQL.quoted(aside))", logger: logger)
            for name in tables {
                try connection.run(
                    "ALTER TABLE \(PostgresSQL.qualified(location.schema, name)) SET SCHEMA \(PostgresSQL.quoted(aside))", logger: logger)
            }
        }

        /// Persistent history follows the renumbering (``RelationalHistory/renumber(_:connection:)``).
        private func renumberHistory(from source: CoreDataTableMapping, to destination: CoreDataTableMapping) throws {
            guard try PostgresStore.hasHistoryTables(in: location.schema, connection, logger: logger) else { return }
            var numbers: [Int: Int] = [:]
            for (old, new) in step.mapping.entityRenames {
                if let a = source.entities[old]?.number, let b = destination.entities[new]?.number { numbers[a] = b }
            }
            let session = PostgresRelationalConnection(
                connection, dialect: .postgreSQL(schema: location.schema), logger: logger, columnStorages: [:])  // writes no batches
            guard let last = try RelationalHistory.renumber(numbers, connection: session) else { return }
            logger.warning(
                "persistent history cut: an entity it names does not carry over", metadata: ["store": "\(location)", "through transaction": "\(last)"])
        }

        /// The old model's next reference number per hierarchy root, from `Z_PRIMARYKEY`.
        private func nextReferences(of mapping: CoreDataTableMapping) throws -> [String: Int64] {
            var next: [String: Int64] = [:]
            let rows = try connection.rows(
                "SELECT \"Z_ENT\", \"Z_MAX\" FROM \(PostgresSQL.qualified(location.schema, "Z_PRIMARYKEY")) WHERE \"Z_SUPER\" = 0", logger: logger)
            for row in rows {
                let cells = row.makeRandomAccess()
                guard let number = try cells[0].int64(), let name = mapping.entityNames[Int(number)], let max = try cells[1].int64() else { continue }
                next[name] = max + 1
            }
            return next
        }
    }
}
