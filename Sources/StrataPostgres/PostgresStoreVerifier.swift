import Foundation
import Logging
import PostgresNIO
import Strata

/// Checks a PostgreSQL store whole, as `strata verify` checks a SQLite file: with the model that
/// wrote it (given, or carried by the store's metadata), that its tables and columns are there,
/// that `Z_MODEL` names that model, that every to-one key and join-table row points at a stored
/// object, and that `Z_PRIMARYKEY` will not hand out a reference number already taken. Reads in
/// one `REPEATABLE READ` transaction: one state of the store, whatever servers save meanwhile.
package struct PostgresStoreVerifier {
    package let url: URL
    package var model: ManagedObjectModel?
    package private(set) var objectCount = 0
    /// How many objects of each entity the tables hold.
    package private(set) var objectCounts: [String: Int] = [:]
    package var problems: [String] = []

    package init(url: URL) {
        self.url = url
    }

    package mutating func run() throws {
        problems += try PostgresStore.withOneOffConnection(to: url) { connection, location, logger in
            try connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            defer { _ = try? connection.run("ROLLBACK", logger: logger) }
            guard let (metadata, _) = try PostgresStore.storedMetadata(connection, location, logger: logger) else {
                throw PostgresStoreError(.notAStore, "\(location) holds no store")
            }
            let model = try self.model ?? ManagedObjectModel(cachedInStoreMetadata: metadata)
            guard let model else {
                throw PostgresStoreError(.notAStore, "the store carries no model; give the one that wrote it")
            }
            var check = Check(connection: connection, location: location, logger: logger, mapping: CoreDataSQLiteMapping(model: model))
            try check.run(modelChecksum: model.versionChecksum.base64EncodedString())
            objectCounts = check.objectCounts
            objectCount = check.objectCounts.values.reduce(0, +)
            return check.problems
        }
    }

    private struct Check {
        let connection: PostgresConnection
        let location: PostgresLocation
        let logger: Logger
        let mapping: CoreDataSQLiteMapping
        var objectCounts: [String: Int] = [:]
        var problems: [String] = []

        func table(_ name: String) -> String { PostgresSQL.qualified(location.schema, name) }
        func quoted(_ name: String) -> String { PostgresSQL.quoted(name) }

        func integer(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int64 {
            try connection.rows(sql, values, logger: logger).first?.makeRandomAccess()[0].int64() ?? 0
        }

        mutating func run(modelChecksum: String) throws {
            let written = try connection.rows("SELECT \"Z_MODEL\" FROM \(table("Z_METADATA"))", logger: logger).first?.makeRandomAccess()[0]
            if case .text(let checksum)? = try written?.value(as: .text), checksum != modelChecksum {
                problems.append("Z_METADATA's Z_MODEL names another model than the one the store's metadata has: a migration did not finish")
            }
            var columnsOf: [String: Set<String>] = [:]
            for row in try connection.rows(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1", [.text(location.schema)], logger: logger)
            {
                let cells = row.makeRandomAccess()
                guard case .text(let table) = try cells[0].value(as: .text), case .text(let column) = try cells[1].value(as: .text) else { continue }
                columnsOf[table, default: []].insert(column)
            }
            for table in mapping.schema.tables {
                guard let columns = columnsOf[table.name] else {
                    problems.append("the table \(table.name) is missing")
                    continue
                }
                let missing = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).filter { !columns.contains($0) }
                if !missing.isEmpty { problems.append("the table \(table.name) lacks the column(s) \(missing.joined(separator: ", "))") }
            }
            for join in mapping.schema.joinTables {
                guard let columns = columnsOf[join.name] else {
                    problems.append("the join table \(join.name) is missing")
                    continue
                }
                if !Set(join.columns).isSubset(of: columns) {
                    problems.append("the join table \(join.name) lacks columns of \(join.columns.joined(separator: ", "))")
                }
            }
            guard problems.isEmpty else { return }
            for entity in mapping.schema.entities {
                let rows = try integer("SELECT count(*) FROM \(table("Z_PRIMARYKEY")) WHERE \"Z_ENT\" = $1", [.integer(Int64(entity.number))])
                if rows != 1 { problems.append("Z_PRIMARYKEY has no row for \(entity.name) (entity \(entity.number))") }
            }
            for entity in mapping.entities.values.sorted(by: { $0.number < $1.number }) {
                let number = [SQLiteValue.integer(Int64(entity.number))]
                objectCounts[entity.layout.name] = Int(try integer("SELECT count(*) FROM \(table(entity.table)) WHERE \"Z_ENT\" = $1", number))
                for toOne in entity.toOnes {
                    guard let destination = mapping.entities[toOne.destination] else { continue }
                    let key = quoted(toOne.column)
                    let dangling = try integer(
                        "SELECT count(*) FROM \(table(entity.table)) a WHERE a.\"Z_ENT\" = $1 AND a.\(key) IS NOT NULL "
                            + "AND NOT EXISTS (SELECT 1 FROM \(table(destination.table)) d WHERE d.\"Z_PK\" = a.\(key))", number)
                    if dangling > 0 { problems.append("\(dangling) \(entity.layout.name) object(s) point at missing objects through \(toOne.column)") }
                }
                for toMany in entity.toManys {
                    guard case .joinTable(let join, let own, let other, _, _, let destinationTable) = toMany.storage else { continue }
                    let dangling = try integer(
                        "SELECT count(*) FROM \(table(join)) j WHERE NOT EXISTS (SELECT 1 FROM \(table(entity.table)) s WHERE s.\"Z_PK\" = j.\(quoted(own))) "
                            + "OR NOT EXISTS (SELECT 1 FROM \(table(destinationTable)) d WHERE d.\"Z_PK\" = j.\(quoted(other)))")
                    if dangling > 0 { problems.append("\(dangling) row(s) of \(join) point at missing objects") }
                }
            }
            for root in mapping.schema.entities where root.superNumber == 0 {
                let highest = try integer("SELECT coalesce(max(\"Z_PK\"), 0) FROM \(table(root.table))")
                let counter = try integer("SELECT coalesce(max(\"Z_MAX\"), 0) FROM \(table("Z_PRIMARYKEY")) WHERE \"Z_ENT\" = $1", [.integer(Int64(root.number))])
                if highest > counter {
                    problems.append("Z_PRIMARYKEY's Z_MAX for \(root.name) is \(counter), below the highest Z_PK \(highest): numbers would be handed out twice")
                }
            }
        }
    }
}
