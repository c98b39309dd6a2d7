import Foundation
import Strata

/// The tables of a model in a PostgreSQL schema: the SQLite store's tables, columns and indexes
/// (Core Data's scheme: one table per root entity with `Z_PK`, `Z_ENT`, `Z_OPT` and a column per
/// property, join tables for many-to-many relationships, `Z_PRIMARYKEY` counting reference
/// numbers), with PostgreSQL's types, every name quoted, and uniqueness constraints as unique
/// indexes. Two tables of the store's own: `Z_METADATA` (the store's UUID, metadata as JSON,
/// `Z_CHANGE`, the number of the last save, which orders saves and tells a coordinator that
/// another one committed, and `Z_MODEL`, the version checksum of the model the tables are at).
struct PostgresSchema {
    let schema: String
    let model: CoreDataSQLiteSchema

    /// The maximum length of a PostgreSQL name (longer ones are cut, and could then clash).
    static let maximumNameLength = 63

    func table(_ name: String) -> String {
        PostgresSQL.qualified(schema, name)
    }

    /// The statements that create the store's own tables, and its metadata row.
    var storeTables: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(table("Z_METADATA")) (\"Z_VERSION\" integer PRIMARY KEY, \"Z_UUID\" text NOT NULL, "
                + "\"Z_METADATA\" text NOT NULL, \"Z_CHANGE\" bigint NOT NULL, \"Z_MODEL\" text)",
            "CREATE TABLE IF NOT EXISTS \(table("Z_PRIMARYKEY")) (\"Z_ENT\" integer PRIMARY KEY, \"Z_NAME\" text NOT NULL, "
                + "\"Z_SUPER\" integer NOT NULL, \"Z_MAX\" bigint NOT NULL)",
        ]
    }

    /// The statements that create persistent history's tables where they are missing
    /// (``PostgresStore`` "+History"). `ZENTITY` is empty for an entity a migration removed.
    var historyTables: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(table("ATRANSACTION")) (\"Z_PK\" bigint PRIMARY KEY, \"ZTIMESTAMP\" timestamptz NOT NULL, "
                + "\"ZAUTHOR\" text, \"ZBUNDLEID\" text, \"ZCONTEXTNAME\" text, \"ZPROCESSID\" text)",
            "CREATE INDEX IF NOT EXISTS \"ATRANSACTION_ZTIMESTAMP\" ON \(table("ATRANSACTION")) (\"ZTIMESTAMP\")",
            "CREATE TABLE IF NOT EXISTS \(table("ACHANGE")) (\"Z_PK\" bigint PRIMARY KEY, \"ZTRANSACTIONID\" bigint NOT NULL, "
                + "\"ZCHANGETYPE\" smallint NOT NULL, \"ZENTITY\" integer, \"ZENTITYPK\" bigint NOT NULL, \"ZCOLUMNS\" text[], \"ZTOMBSTONE\" jsonb)",
            "CREATE INDEX IF NOT EXISTS \"ACHANGE_ZTRANSACTIONID\" ON \(table("ACHANGE")) (\"ZTRANSACTIONID\")",
        ]
    }

    /// The statements that create the model's tables and indexes where they are missing.
    func modelTables() throws -> [String] {
        var statements: [String] = []
        for table in model.tables {
            try check(table.name)
            var columns = ["\"Z_PK\" bigint PRIMARY KEY", "\"Z_ENT\" integer NOT NULL", "\"Z_OPT\" bigint NOT NULL"]
            for column in table.columns {
                try check(column.name)
                columns.append("\(PostgresSQL.quoted(column.name)) \(Self.storage(ofDeclaredType: column.type).sqlType)")
            }
            statements.append("CREATE TABLE IF NOT EXISTS \(self.table(table.name)) (\(columns.joined(separator: ", ")))")
        }
        for join in model.joinTables {
            try check(join.name)
            // The keys are NOT NULL as the primary key; an ordering column is empty until the
            // ordered side's save writes it (the other side may write the link first).
            let columns = join.columns.map { "\(PostgresSQL.quoted($0)) bigint" }
            let key = "PRIMARY KEY (\(join.primaryKey.map(PostgresSQL.quoted).joined(separator: ", ")))"
            statements.append("CREATE TABLE IF NOT EXISTS \(table(join.name)) (\((columns + [key]).joined(separator: ", ")))")
        }
        // Text in byte order, as SQLite's `COLLATE BINARY` of Core Data's indexes keeps it and as
        // the store sorts and compares (`COLLATE "C"`): an index in the database's own collation
        // would serve no sorted fetch, and a page of books by title would sort the whole table.
        // A store made before has its indexes rebuilt (``PostgresStore``'s
        // `dropIndexesOutOfByteOrder`, before these statements).
        //
        // An index whose table, columns and uniqueness an earlier one has is not made again:
        // Core Data's SQLite schema has two for a fetch index of one attribute (`Z_Person_byEmail`
        // beside `Z_Person_email`), which a SQLite reader may look for by name; here the second
        // would only be written on every insert (a sixth of the server's time inserting 100,000
        // people: 704-800 ms against 584-669 ms without it).
        let texts = textColumns
        var made: Set<String> = []
        for index in model.indexes {
            let columns = index.columns.map { column -> String in
                PostgresSQL.quoted(column.name) + (texts.contains([index.table, column.name]) ? " COLLATE \"C\"" : "")
                    + (column.clause.hasSuffix("DESC") ? " DESC" : "")
            }
            guard made.insert("\(index.isUnique) \(index.table) \(columns)").inserted else { continue }
            statements.append(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(PostgresSQL.quoted(Self.indexName(index.name))) "
                    + "ON \(table(index.table)) (\(columns.joined(separator: ", ")))")
        }
        return statements
    }

    /// Every text column, as [table, column].
    private var textColumns: Set<[String]> {
        var texts: Set<[String]> = []
        for table in model.tables {
            for column in table.columns where Self.storage(ofDeclaredType: column.type) == .text { texts.insert([table.name, column.name]) }
        }
        return texts
    }

    /// The names of the model's indexes that hold a text column (kept in byte order).
    var textIndexNames: [String] {
        let texts = textColumns
        return model.indexes.filter { index in index.columns.contains { texts.contains([index.table, $0.name]) } }.map { Self.indexName($0.name) }
    }

    /// The `Z_PRIMARYKEY` rows of the model's entities, as (number, name, superentity's number).
    var entityRows: [(number: Int, name: String, superNumber: Int)] {
        model.entities.map { ($0.number, $0.name, $0.superNumber) }
    }

    /// How the SQLite store's declared column type stores values.
    static func storage(ofDeclaredType type: String) -> PostgresStorage {
        switch type {
        case "INTEGER": .integer
        case "FLOAT", "TIMESTAMP", "DECIMAL": .real
        case "VARCHAR": .text
        default: .blob
        }
    }

    /// An index's name, kept under PostgreSQL's limit: a long one is cut and given a hash of the
    /// whole, so that two long names never become one.
    static func indexName(_ name: String) -> String {
        guard name.utf8.count > maximumNameLength else { return name }
        let suffix = "_" + stableHash(name)
        var prefix = ""
        for character in name {
            guard prefix.utf8.count + String(character).utf8.count + suffix.utf8.count <= maximumNameLength else { break }
            prefix.append(character)
        }
        return prefix + suffix
    }

    /// A short name for `text`, the same on every run and machine (FNV-1a, in hexadecimal).
    static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    private func check(_ name: String) throws {
        guard name.utf8.count <= Self.maximumNameLength else {
            throw PersistenceError(
                .incompatibleStore, "the model's name \(name) is longer than PostgreSQL's 63 bytes; rename the entity or property")
        }
    }
}
