import CSQLite
import Foundation
import Logging

/// Migrates a SQLite store in place with SQL alone, inside one write transaction, as Core Data
/// migrates a SQLite store whose mapping is inferred (`formats/coredata-lightweight-migration.md`
/// §1): every table of the destination model is built beside the old ones from `INSERT … SELECT`
/// statements, checked, and swapped in; an error, a crash or a cancellation leaves the store
/// exactly as it was, since the transaction never commits.
///
/// What carries over: every object's `Z_PK` (so its reference number and URI; an entity's
/// rename is recorded in the metadata, so URIs taken under the old name still resolve),
/// `Z_OPT`, each hierarchy's `Z_MAX`, column values as they are stored (Core Data copies them
/// without conversion: SQLite's affinity does the rest), to-one keys with their target's
/// entity number renumbered, to-many links moved between inverse keys and join tables when a
/// to-one becomes a to-many. Values whose stored form changes (a number becoming a string, a
/// fraction or a too-large number put in a narrower integer, inline data moving to external
/// storage) are converted row by row as the binary store's migration converts them; a value
/// that does not fit fails the migration. Objects lacking what the step makes required fail it
/// too, each named (`DataRequirements`). Adding a uniqueness constraint over duplicates fails
/// it, as in Core Data.
///
/// Every table is rebuilt, whatever changed: simpler to hold to Core Data's column order than
/// `ALTER TABLE`, and still SQL only. Derived attributes' triggers are kept where their tables
/// and columns still exist; tables the model does not describe (persistent history) are left
/// as they are. A step whose mapping needs objects (custom policies, expressions, closures)
/// copies rows into a new file instead (`SQLiteStoreMigration+Rows.swift`).
struct SQLiteStoreMigration {
    let steps: [MigrationStep]
    /// As ``MigrationManager/fillsMissingValues``.
    var fillsMissingValues = false
    var isCancelled: () -> Bool = { false }
    var progress: (MigrationProgress) -> Void = { _ in }

    /// What the old tables are renamed with while the new ones are filled.
    static let oldPrefix = "ZSTRATAMIGRATING_"
    private let logger = Logger(label: "strata.migration")

    /// Why `mapping` cannot run in SQL, if it cannot: custom policies, expressions and closures
    /// need objects, which this migration never makes.
    static func sqlProblems(of mapping: MappingModel) -> [String] {
        var problems: [String] = []
        var sources: Set<String> = []
        for entityMapping in mapping.entityMappings {
            if let source = entityMapping.sourceEntityName, entityMapping.kind != .remove, !sources.insert(source).inserted {
                problems.append("\(entityMapping.name): a second mapping of \(source)")
            }
            if entityMapping.policy != nil || entityMapping.kind == .custom {
                problems.append("\(entityMapping.name): a custom policy")
            }
            for property in entityMapping.attributeMappings + entityMapping.relationshipMappings {
                switch property.value {
                case .sourceKey, .constant: continue
                case .expression, .closure: problems.append("\(entityMapping.name).\(property.name): an expression or closure")
                }
            }
        }
        return problems
    }

    /// Runs the steps and returns what each filled in: the steps SQL can do together in one
    /// transaction; a step with custom code (see ``sqlProblems(of:)``) by copying rows
    /// (``migrateByRows(_:at:)``), between them.
    ///
    /// - Parameter backup: Where to write a copy of the store as it was (`VACUUM INTO`).
    /// - Throws: ``MigrationError`` (the store is not at the first step's source version, its
    ///   data breaks the destination's rules, the migration was cancelled), or ``StoreError``.
    func migrateStore(at url: URL, backup: URL?) throws -> [MigrationReport] {
        guard !steps.isEmpty else { return [] }
        try SQLiteStore.checkHeader(of: url)
        if let backup {
            do {
                try? FileManager.default.removeItem(at: backup)
                let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: SQLiteStore.defaultTimeout)
                try connection.statement("VACUUM INTO ?").run([.text(backup.path)])
            } catch let error as SQLiteError {
                throw error.storeError(file: url)
            }
        }
        var reports: [MigrationReport] = []
        var inSQL: [MigrationStep] = []
        for step in steps {
            if Self.sqlProblems(of: step.mapping).isEmpty {
                inSQL.append(step)
                continue
            }
            reports += try migrateInSQL(inSQL, at: url)
            inSQL = []
            reports.append(try migrateByRows(step, at: url))
        }
        return reports + (try migrateInSQL(inSQL, at: url))
    }

    /// Steps whose mappings copy, rename and convert, in SQL, all in one write transaction.
    private func migrateInSQL(_ steps: [MigrationStep], at url: URL) throws -> [MigrationReport] {
        guard !steps.isEmpty else { return [] }
        do {
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: SQLiteStore.defaultTimeout)
            return try connection.writeTransaction {
                guard var metadata = try SQLiteStore.readMetadata(from: connection, file: url) else {
                    throw StoreError(.notAStore, file: url, "the SQLite database is empty: it is not a Core Data store")
                }
                var reports: [MigrationReport] = []
                for step in steps {
                    var run = try StepRun(step: step, connection: connection, file: url, migration: self)
                    reports.append(try run.migrate(metadata: &metadata))
                }
                try SQLiteStore.writeMetadata(metadata, to: connection, file: url)
                // Core Data's cached model is the new version's now, as Core Data's migration leaves it.
                if try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'") == .integer(1),
                    let destination = steps.last?.destination
                {
                    try SQLiteStore.writeModelCache(of: destination, to: connection)
                }
                return reports
            }
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
    }
}

extension SQLiteStoreMigration {
    /// One step's work inside the transaction.
    struct StepRun {
        let step: MigrationStep
        let connection: SQLiteConnection
        let file: URL
        let migration: SQLiteStoreMigration
        let from: CoreDataTableMapping
        let to: CoreDataTableMapping
        /// Source entity number → destination entity number, for the entities that carry over.
        let numbers: [Int: Int]
        var failures = FailureList(limit: MigrationManager.listedFailures)
        var filled: [String: Int] = [:]
        var done = 0

        init(step: MigrationStep, connection: SQLiteConnection, file: URL, migration: SQLiteStoreMigration) throws {
            self.step = step
            self.connection = connection
            self.file = file
            self.migration = migration
            // The source is read where the file keeps its join tables (a store Core Data wrote).
            from = CoreDataTableMapping(model: step.source, existingTables: try connection.tableColumns())
            to = CoreDataTableMapping(model: step.destination)
            var numbers: [Int: Int] = [:]
            for (source, destination) in step.mapping.entityRenames {
                if let a = from.entities[source]?.number, let b = to.entities[destination]?.number { numbers[a] = b }
            }
            self.numbers = numbers
        }

        /// Where an old table is while the new one takes its name.
        static func old(_ table: String) -> String { SQLiteStoreMigration.oldPrefix + table }

        mutating func migrate(metadata: inout [String: MetadataValue]) throws -> MigrationReport {
            try step.source.checkWroteStore(withMetadata: metadata)
            guard to.unsupported.isEmpty else {
                throw StoreError(
                    .unsupportedModel, file: file,
                    "the destination model has to-many relationships without an inverse, which the SQLite store cannot store yet: "
                        + to.unsupported.joined(separator: ", "))
            }
            try checkSourceTables()
            let store = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? ""
            let triggers = try setOldTablesAside()
            // Created under their own names: a renamed table's CREATE statement would keep its name quoted, unlike Core Data's.
            for table in to.schema.tables { try connection.execute(table.createStatement(named: table.name)) }
            for join in to.schema.joinTables { try connection.execute(join.createStatement(named: join.name)) }
            for entityMapping in step.mapping.entityMappings {
                if migration.isCancelled() { throw MigrationError(.cancelled, "the migration was cancelled; the store is unchanged") }
                try copyRows(of: entityMapping)
            }
            for join in to.schema.joinTables { try copyLinks(into: join) }
            try checkRequirements(store: store)
            try convertValues(store: store)
            if let error = failures.error(stage: step.name) { throw error }
            try renumberHistory()
            try dropOldTables(restoring: triggers)
            try rebuildPrimaryKeys()
            metadata = MigrationManager.migratedMetadata(from: metadata, to: step.destination, renames: step.mapping.entityRenames)
            metadata[PersistentStore.storeUUIDKey] = .string(store)
            migration.logger.info("migrated a SQLite store in place", metadata: ["store": "\(file.path)", "step": "\(step.name)", "objects": "\(done)"])
            return MigrationReport(stage: step.name, filledValues: filled)
        }

        /// A store that lacks a table its model has is not what the metadata says.
        private func checkSourceTables() throws {
            var present: Set<String> = []
            try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table'").forEachRow { row in
                if case .text(let name) = row.value(0) { present.insert(name) }
            }
            let missing = (from.schema.tables.map(\.name) + from.schema.joinTables.map(\.name)).filter { !present.contains($0) }
            guard missing.isEmpty else {
                throw StoreError(
                    .corruptFile, file: file, "the store lacks tables the model that wrote it has: \(missing.joined(separator: ", "))")
            }
            for table in present where table.hasPrefix(SQLiteStoreMigration.oldPrefix) {
                throw StoreError(.corruptFile, file: file, "the store has a table named like a migration's own (\(table))")
            }
        }

        // MARK: Rows

        /// `INSERT … SELECT` of one source entity's rows (not its subentities': they have
        /// mappings of their own) into the destination's table.
        private mutating func copyRows(of entityMapping: EntityMapping) throws {
            guard let sourceName = entityMapping.sourceEntityName, let destinationName = entityMapping.destinationEntityName,
                entityMapping.kind != .remove, entityMapping.kind != .add,
                let source = from.entities[sourceName], let destination = to.entities[destinationName]
            else { return }
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var values = ["t.Z_PK", "\(destination.number)", "t.Z_OPT"]
            var bindings: [SQLValue] = []
            let sources = Dictionary(
                entityMapping.attributeMappings.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            for column in destination.attributes {
                let attribute = column.attribute
                let fallback = attribute.defaultValue.map { CoreDataColumnValues.encode($0, for: attribute) }
                var expression: String?
                switch sources[attribute.name] {
                case .sourceKey(let key)?:
                    if let origin = source.attributes.first(where: { $0.attribute.name == key }) {
                        expression = "t.\(origin.column)"
                        // A required attribute's missing values take its default (§3).
                        if !attribute.isOptional, let fallback {
                            expression = "COALESCE(t.\(origin.column), ?)"
                            bindings.append(fallback)
                        }
                    }
                case .constant(let value)?:
                    if let value {
                        expression = "?"
                        bindings.append(CoreDataColumnValues.encode(value, for: attribute))
                    }
                default: break
                }
                if expression == nil, let fallback {
                    expression = "?"
                    bindings.append(fallback)
                }
                if let expression {
                    columns.append(column.column)
                    values.append(expression)
                }
            }
            let relationshipSources = Dictionary(
                entityMapping.relationshipMappings.compactMap { mapping -> (String, String)? in
                    guard case .sourceKey(let key) = mapping.value else { return nil }
                    return (mapping.name, key)
                }, uniquingKeysWith: { a, _ in a })
            for toOne in destination.toOnes {
                let name = destination.layout.relationships[toOne.slot].name
                guard let key = relationshipSources[name], let origin = source.toOnes.first(where: { source.layout.relationships[$0.slot].name == key })
                else { continue }
                // Looked up in the target's table, so that a key to an object that does not carry
                // over (its entity was removed) becomes no key, and the target's entity number is
                // the one it has now.
                let surviving = numbers.keys.sorted().map(String.init).joined(separator: ", ")
                columns.append(toOne.column)
                values.append("(SELECT x.Z_PK FROM \(Self.old(origin.destinationTable)) x WHERE x.Z_PK = t.\(origin.column) AND x.Z_ENT IN (\(surviving)))")
                if let entityColumn = toOne.entityColumn {
                    columns.append(entityColumn)
                    values.append("(SELECT \(renumbering("x.Z_ENT")) FROM \(Self.old(origin.destinationTable)) x WHERE x.Z_PK = t.\(origin.column))")
                }
                if let order = toOne.orderColumn, let sourceOrder = origin.orderColumn {
                    columns.append(order)
                    values.append("t.\(sourceOrder)")
                }
            }
            let sql = "INSERT INTO \(destination.table) (\(columns.joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM \(Self.old(source.table)) t WHERE t.Z_ENT = \(source.number)"
            try connection.statement(sql).run(bindings)
            done += connection.changes
            migration.progress(MigrationProgress(stage: step.name, entity: sourceName, objectsDone: done, totalObjects: nil))
        }

        /// `CASE column WHEN <source number> THEN <destination number> … END`: NULL for an entity
        /// that does not carry over.
        func renumbering(_ column: String) -> String {
            guard !numbers.isEmpty else { return "NULL" }
            return "CASE \(column) " + numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " END"
        }

        /// Persistent history follows the renumbering (``RelationalHistory/renumber(_:connection:)``).
        private func renumberHistory() throws {
            guard try SQLiteStore.hasHistoryTables(connection) else { return }
            guard let last = try RelationalHistory.renumber(numbers, connection: SQLiteRelationalConnection(connection)) else { return }
            migration.logger.warning(
                "persistent history cut: an entity it names does not carry over",
                metadata: ["store": "\(file.path)", "through transaction": "\(last)"])
        }

        // MARK: Swapping

        /// Renames the old tables out of the new ones' way, after dropping the triggers (which
        /// would follow the rename); returns the triggers, to put back.
        private func setOldTablesAside() throws -> [(name: String, sql: String)] {
            var triggers: [(name: String, sql: String)] = []
            try connection.statement("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL").forEachRow { row in
                if case .text(let name) = row.value(0), case .text(let sql) = row.value(1) { triggers.append((name, sql)) }
            }
            for trigger in triggers { try connection.execute("DROP TRIGGER \(quoted(trigger.name))") }
            for table in from.schema.tables.map(\.name) + from.schema.joinTables.map(\.name) {
                // Their indexes go with them: the new tables' indexes take the same names.
                var indexes: [String] = []
                try connection.statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
                    .forEachRow([.text(table)]) { row in if case .text(let name) = row.value(0) { indexes.append(name) } }
                for index in indexes { try connection.execute("DROP INDEX \(quoted(index))") }
                try connection.execute("ALTER TABLE \(table) RENAME TO \(Self.old(table))")
            }
            return triggers
        }

        /// Drops the old tables, creates the destination's indexes (a uniqueness constraint
        /// over duplicates fails here), and puts back the triggers whose tables and columns
        /// still exist.
        private func dropOldTables(restoring triggers: [(name: String, sql: String)]) throws {
            for table in from.schema.tables.map(\.name) + from.schema.joinTables.map(\.name) {
                try connection.execute("DROP TABLE \(Self.old(table))")
            }
            for index in to.schema.indexes {
                do {
                    try connection.execute(index.createStatement)
                } catch let error as SQLiteError where error.code == SQLITE_CONSTRAINT {
                    throw MigrationError(
                        .dataLoss,
                        "\(step.name): constraint violation during attempted migration: objects share values that the uniqueness "
                            + "constraint \(index.name) makes unique (Core Data does not remove duplicates either; remove them first)")
                }
            }
            for trigger in triggers {
                do {
                    try connection.execute(trigger.sql)
                } catch let error as SQLiteError {
                    migration.logger.warning(
                        "a trigger does not fit the migrated tables and is left out",
                        metadata: ["trigger": "\(trigger.name)", "error": "\(error.message)"])
                }
            }
        }

        /// `Z_PRIMARYKEY` for the destination's entities: each root's `Z_MAX` at least every
        /// number its hierarchy's sources handed out and every `Z_PK` its table holds, so that
        /// no number is handed out twice.
        private func rebuildPrimaryKeys() throws {
            var maxima: [Int: Int64] = [:]
            try connection.statement("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").forEachRow { row in
                maxima[Int(row.int64(0))] = row.int64(1)
            }
            var carried: [Int: Int64] = [:]  // destination number → highest source Z_MAX
            var tableMaxima: [String: Int64] = [:]  // destination table → highest source Z_MAX of what it holds
            for (source, destination) in numbers {
                guard let value = maxima[source] else { continue }
                carried[destination] = max(carried[destination] ?? 0, value)
                if let table = to.schema.entities.first(where: { $0.number == destination })?.table {
                    tableMaxima[table] = max(tableMaxima[table] ?? 0, value)
                }
            }
            // Persistent history's rows (16001 on) keep their counters: its keys are never reused.
            try connection.execute("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < \(CoreDataHistorySchema.changeEntity.number)")
            let insert = try connection.statement("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
            for entity in to.schema.entities {
                var value = carried[entity.number] ?? 0
                if entity.superNumber == 0 {
                    let highest = try connection.scalar("SELECT max(Z_PK) FROM \(entity.table)")
                    if case .integer(let pk)? = highest { value = max(value, pk) }
                    value = max(value, tableMaxima[entity.table] ?? 0)
                }
                try insert.run([.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber)), .integer(value)])
            }
        }

        private func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    }
}
