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
            var problems: [String] = []
            let written = try connection.rows("SELECT \"Z_MODEL\" FROM \(PostgresSQL.qualified(location.schema, "Z_METADATA"))", logger: logger)
                .first?.makeRandomAccess()[0]
            if case .text(let checksum)? = try written?.value(as: .text), checksum != model.versionChecksum.base64EncodedString() {
                problems.append("Z_METADATA's Z_MODEL names another model than the one the store's metadata has: a migration did not finish")
            }
            var columns: [String: Set<String>] = [:]
            for row in try connection.rows(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1", [.text(location.schema)], logger: logger)
            {
                let cells = row.makeRandomAccess()
                guard case .text(let table) = try cells[0].value(as: .text), case .text(let column) = try cells[1].value(as: .text) else { continue }
                columns[table, default: []].insert(column)
            }
            let session = PostgresRelationalConnection(
                connection, dialect: .postgreSQL(schema: location.schema), logger: logger, columnStorages: [:])  // writes no batches
            var check = RelationalStoreCheck(connection: session, mapping: CoreDataTableMapping(model: model))
            try check.run(columns: columns)
            objectCounts = check.objectCounts
            objectCount = check.objectCounts.values.reduce(0, +)
            return problems + check.problems
        }
    }
}
