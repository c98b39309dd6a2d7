import Foundation
import Logging
import PostgresNIO
import Strata

/// Persistent history in two tables of the store's schema, written in each save's own
/// transaction (`docs/PostgresStore.md`, "Persistent history"):
/// - `ATRANSACTION`: one row per save, numbered from `Z_PRIMARYKEY`'s row 16002, as Core Data
///   numbers its transactions. A save takes the number after its lock on `Z_CHANGE`, which it
///   holds until it commits, so numbers follow commit order across servers: a reader that has
///   seen transaction `n` has seen every transaction before it, and a token never skips a save
///   another server committed late.
/// - `ACHANGE`: one row per object changed, keyed from row 16001 under the same lock; the
///   object as its entity's number and reference number, an update's changed properties as a
///   `text[]` of names, a delete's tombstone as a `jsonb` object of attribute name to value
///   (as text).
///
/// As in Core Data, a store that records history must be added with
/// ``Strata/PersistentStoreOption/persistentHistoryTracking`` to be written: without it, it
/// opens read-only; and a server that opened it before another one turned history on finds out
/// at its next save, which fails and writes nothing.
extension PostgresStore {
    /// `Z_PRIMARYKEY`'s rows that number history's changes and transactions (Core Data's
    /// numbers and names for its history entities).
    static let historyChangeEntity = CoreDataHistorySchema.changeEntity
    static let historyTransactionEntity = CoreDataHistorySchema.transactionEntity

    // MARK: Tables

    /// Creates the history tables of a store added with history tracking, or makes a store
    /// that has them and is added without it read-only. In `storeWasAdded`'s transaction.
    func prepareHistory(_ connection: PostgresConnection) throws {
        guard tracksPersistentHistory else {
            if try hasHistoryTables(connection) {
                forceReadOnly(because: Self.historyWithoutTracking)
                logger.warning("opened read-only: \(Self.historyWithoutTracking)", metadata: ["store": "\(location)"])
            }
            return
        }
        guard !isReadOnly else { return }
        for statement in schema.historyTables { try connection.run(statement, logger: logger) }
        for entity in [Self.historyChangeEntity, Self.historyTransactionEntity] {
            try connection.run(
                "INSERT INTO \(schema.table("Z_PRIMARYKEY")) (\"Z_ENT\", \"Z_NAME\", \"Z_SUPER\", \"Z_MAX\") VALUES ($1, $2, 0, 0) "
                    + "ON CONFLICT (\"Z_ENT\") DO NOTHING",
                [.integer(Int64(entity.number)), .text(entity.name)], logger: logger)
        }
    }

    static let historyWithoutTracking =
        "the store records persistent history, and was added without the option persistentHistoryTracking: "
        + "it is read-only, as in Core Data, so that no save goes missing from its history"

    func hasHistoryTables(_ connection: PostgresConnection) throws -> Bool {
        try Self.hasHistoryTables(in: location.schema, connection, logger: logger)
    }

    static func hasHistoryTables(in schema: String, _ connection: PostgresConnection, logger: Logger) throws -> Bool {
        try connection.rows("SELECT to_regclass($1) IS NOT NULL", [.text(PostgresSQL.qualified(schema, "ACHANGE"))], logger: logger)
            .first?.makeRandomAccess()[0].decode(Bool.self) ?? false
    }

    /// Whether the store at `url` records persistent history (has its tables): then it must be
    /// added with ``Strata/PersistentStoreOption/persistentHistoryTracking`` to be written.
    package static func recordsPersistentHistory(at url: URL) throws -> Bool {
        try withOneOffConnection(to: url) { connection, location, logger in
            try hasHistoryTables(in: location.schema, connection, logger: logger)
        }
    }

    // MARK: Writing

    /// The tombstones of the objects a save deletes, read in its transaction before their rows
    /// go: by object, attribute name → value as text (`nil` values left out). Objects of
    /// entities that keep none have none.
    func tombstones(of deleted: [ManagedObjectID: Int64], connection: PostgresConnection) throws -> [ManagedObjectID: String] {
        var byEntity: [String: [ManagedObjectID]] = [:]
        for id in deleted.keys { byEntity[id.entityName, default: []].append(id) }
        var tombstones: [ManagedObjectID: String] = [:]
        for (name, ids) in byEntity {
            guard let table = mapping.entities[name] else { continue }
            let kept = SaveHistory.tombstoneAttributes(of: table.layout, in: managedObjectModel)
                .compactMap { name in table.attributes.first { $0.attribute.name == name } }
            guard !kept.isEmpty else { continue }
            let references = Dictionary(ids.compactMap { id in referenceObject(for: id).map { ($0, id) } }, uniquingKeysWith: { a, _ in a })
            var bindings = PostgresBindings()
            bindings.append(Array(references.keys))
            let rows = try connection.rows(
                "SELECT \"Z_PK\", \(kept.map { PostgresSQL.quoted($0.column) }.joined(separator: ", ")) FROM \(schema.table(table.table)) "
                    + "WHERE \"Z_PK\" = ANY($1)",
                bindings: bindings, logger: logger)
            for row in rows {
                let cells = row.makeRandomAccess()
                guard let reference = try cells[0].int64(), let id = references[reference] else { continue }
                var values: [String: String] = [:]
                for (index, column) in kept.enumerated() {
                    values[column.attribute.name] = Self.text(of: try cells[1 + index].value(as: PostgresStorage(column.attribute.type)))
                }
                tombstones[id] = try Self.json(values)
            }
        }
        return tombstones
    }

    /// Records a save as the next transaction, with one change per object, after the save's
    /// writes and under its lock on `Z_CHANGE`.
    func recordHistory(
        _ history: SaveHistory, of changes: RowChanges, tombstones: [ManagedObjectID: String],
        statements: inout PipelinedStatements
    ) throws {
        var types: [Int64] = []
        var entities: [Int64] = []
        var references: [Int64] = []
        var columns: [String] = []  // a text[] literal, or "" for NULL
        var kept: [String] = []  // a JSON object, or "" for NULL
        func record(_ id: ManagedObjectID, _ type: PersistentHistoryChange.ChangeType, columns changed: String = "", tombstone: String = "") {
            guard let table = mapping.entities[id.entityName], let reference = referenceObject(for: id) else { return }
            types.append(Int64(type.rawValue))
            entities.append(Int64(table.number))
            references.append(reference)
            columns.append(changed)
            kept.append(tombstone)
        }
        for id in changes.inserted.keys.sorted(by: RelationalHistory.recordingOrder) { record(id, .insert) }
        for id in changes.updated.keys.sorted(by: RelationalHistory.recordingOrder) where changes.inserted[id] == nil {
            // Without the row the update started from (a save through the public contract), every
            // stored property may have changed.
            let names = history.updatedProperties[id] ?? allProperties(of: id)
            record(id, .update, columns: Self.textArrayLiteral(names.sorted()))
        }
        for id in changes.deleted.keys.sorted(by: RelationalHistory.recordingOrder) { record(id, .delete, tombstone: tombstones[id] ?? "") }
        guard !types.isEmpty else { return }

        let keys = schema.table("Z_PRIMARYKEY")
        var transaction = PostgresBindings()
        transaction.append(Int64(Self.historyTransactionEntity.number))
        transaction.append(Date())
        for string in [history.author, history.bundleID, history.contextName, history.processID] {
            if let string { transaction.append(string) } else { transaction.appendNull() }
        }
        try statements.send(
            """
            WITH number AS (UPDATE \(keys) SET "Z_MAX" = "Z_MAX" + 1 WHERE "Z_ENT" = $1 RETURNING "Z_MAX")
            INSERT INTO \(schema.table("ATRANSACTION")) ("Z_PK", "ZTIMESTAMP", "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID")
            SELECT number."Z_MAX", $2, $3, $4, $5, $6 FROM number
            """,
            bindings: transaction)
        var rows = PostgresBindings()
        rows.append(Int64(types.count))
        rows.append(Int64(Self.historyChangeEntity.number))
        rows.append(Int64(Self.historyTransactionEntity.number))
        rows.append(types)
        rows.append(entities)
        rows.append(references)
        rows.append(columns)
        rows.append(kept)
        try statements.send(
            """
            WITH keys AS (UPDATE \(keys) SET "Z_MAX" = "Z_MAX" + $1 WHERE "Z_ENT" = $2 RETURNING "Z_MAX" - $1 AS base)
            INSERT INTO \(schema.table("ACHANGE")) ("Z_PK", "ZTRANSACTIONID", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZCOLUMNS", "ZTOMBSTONE")
            SELECT keys.base + c.position, (SELECT "Z_MAX" FROM \(keys) WHERE "Z_ENT" = $3), c.type, c.entity, c.reference, NULLIF(c.columns, '')::text[], NULLIF(c.tombstone, '')::jsonb
            FROM keys, unnest($4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::text[])
                WITH ORDINALITY AS c(type, entity, reference, columns, tombstone, position)
            """,
            bindings: rows)
    }

    private func allProperties(of id: ManagedObjectID) -> Set<String> {
        guard let layout = mapping.entities[id.entityName]?.layout else { return [] }
        return Set(layout.attributes.filter { !$0.isTransient }.map(\.name) + layout.relationships.filter { !$0.isTransient }.map(\.name))
    }

    // MARK: Reading and deleting

    package func recordedHistory(
        after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter
    ) throws -> [PersistentHistoryTransaction] {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        switch position {
        case .token(let token):
            if let number = token?.transactionNumbers[identifier] {
                bindings.append(number)
                conditions.append("t.\"Z_PK\" > $\(bindings.count)")
            }
        case .date(let date):
            bindings.append(date)
            conditions.append("t.\"ZTIMESTAMP\" > $\(bindings.count)")
        }
        switch authors {
        case .any:
            break
        case .only(let author):
            bindings.append(author)
            conditions.append("t.\"ZAUTHOR\" = $\(bindings.count)")
        case .excluding(let author):
            bindings.append(author)
            conditions.append("t.\"ZAUTHOR\" IS DISTINCT FROM $\(bindings.count)")
        }
        // One snapshot for both statements: every change of every transaction read.
        return try withTransaction(isolation: "REPEATABLE READ READ ONLY") { connection in
            guard try hasHistoryTables(connection) else { return [] }
            let headers = try connection.rows(
                "SELECT t.\"Z_PK\", t.\"ZTIMESTAMP\", t.\"ZAUTHOR\", t.\"ZCONTEXTNAME\", t.\"ZBUNDLEID\", t.\"ZPROCESSID\" "
                    + "FROM \(schema.table("ATRANSACTION")) t \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")) "
                    + "ORDER BY t.\"Z_PK\"",
                bindings: bindings, logger: logger)
            var transactions: [(number: Int64, timestamp: Date, strings: [String?])] = []
            for header in headers {
                let cells = header.makeRandomAccess()
                guard let number = try cells[0].int64() else { continue }
                let strings = try (2..<6).map { index -> String? in
                    guard case .text(let text) = try cells[index].value(as: .text) else { return nil }
                    return text
                }
                transactions.append((number, try Self.date(cells[1]), strings))
            }
            guard !transactions.isEmpty else { return [] }
            let changes = try readChanges(of: transactions.map(\.number), connection: connection)
            return transactions.map { header in
                PersistentHistoryTransaction(
                    transactionNumber: header.number, storeID: identifier, timestamp: header.timestamp, author: header.strings[0],
                    contextName: header.strings[1], bundleID: header.strings[2], processID: header.strings[3],
                    changes: changes[header.number] ?? [])
            }
        }
    }

    /// The changes of the transactions `numbers`, by transaction, in the order they were recorded.
    private func readChanges(of numbers: [Int64], connection: PostgresConnection) throws -> [Int64: [PersistentHistoryChange]] {
        var bindings = PostgresBindings()
        bindings.append(numbers)
        let rows = try connection.rows(
            "SELECT \"Z_PK\", \"ZTRANSACTIONID\", \"ZCHANGETYPE\", \"ZENTITY\", \"ZENTITYPK\", \"ZCOLUMNS\", \"ZTOMBSTONE\"::text "
                + "FROM \(schema.table("ACHANGE")) WHERE \"ZTRANSACTIONID\" = ANY($1) ORDER BY \"Z_PK\"",
            bindings: bindings, logger: logger)
        var changes: [Int64: [PersistentHistoryChange]] = [:]
        var unknownEntities: Set<Int64> = []
        for row in rows {
            let cells = row.makeRandomAccess()
            guard let key = try cells[0].int64(), let transaction = try cells[1].int64(), let typeNumber = try cells[2].int64(),
                let reference = try cells[4].int64()
            else { continue }
            guard let type = PersistentHistoryChange.ChangeType(rawValue: Int(typeNumber)) else {
                throw PostgresStoreError(.server, "the history change \(key) has the unknown change type \(typeNumber)")
            }
            let entityNumber = try cells[3].int64() ?? -1
            guard let entityName = mapping.entityNames[Int(entityNumber)] else {
                unknownEntities.insert(entityNumber)
                continue
            }
            var updated: Set<String>?
            if type == .update {
                updated = cells[5].bytes == nil ? [] : Set(try cells[5].decode([String].self))
            }
            var tombstone: [String: AttributeValue]?
            if type == .delete, case .text(let json) = try cells[6].value(as: .text) {
                tombstone = try decodeTombstone(json, entity: entityName, change: key)
            }
            changes[transaction, default: []].append(
                PersistentHistoryChange(
                    changeID: key, changedObjectID: objectID(entity: entityName, reference: reference), changeType: type,
                    updatedProperties: updated, tombstone: tombstone, transactionNumber: transaction))
        }
        if !unknownEntities.isEmpty {
            logger.warning(
                "history names entities this model does not have; their changes are left out",
                metadata: ["store": "\(location)", "entities": "\(unknownEntities.sorted())"])
        }
        return changes
    }

    package func removeHistory(before position: PersistentHistoryChangeRequest.Position) throws -> Int {
        guard !isReadOnly else {
            throw PersistenceError(.readOnlyStore, "the store \(identifier) is read-only: its history cannot be deleted")
        }
        return try withTransaction { connection in
            guard try hasHistoryTables(connection) else { return 0 }
            let session = relationalSession(connection)
            return try RelationalHistory.removeTransactions(before: position, storeIdentifier: identifier, connection: session)
        }
    }

    /// Asked at every remote change: both bounds come from one statement, which sees one state,
    /// so no transaction is begun for it.
    package func recordedHistoryBounds() throws -> (last: Int64, firstKept: Int64) {
        try pool.withConnection { connection in
            guard try hasHistoryTables(connection) else { return (0, 1) }
            return try RelationalHistory.bounds(connection: relationalSession(connection))
        }
    }

    // MARK: Values

    /// A tombstone value as text: integers and doubles as Swift prints them (doubles exactly, as
    /// the shortest text that reads back the same), bytes in hexadecimal.
    private static func text(of value: SQLValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let integer): String(integer)
        case .real(let double): "\(double)"
        case .text(let text): text
        case .blob(let data): data.map { String(format: "%02x", $0) }.joined()
        }
    }

    private static func value(of text: String, as storage: PostgresStorage) -> SQLValue? {
        switch storage {
        case .integer: return Int64(text).map(SQLValue.integer)
        case .real: return Double(text).map(SQLValue.real)
        case .text: return .text(text)
        case .blob:
            let digits = Array(text.utf8)
            guard digits.count.isMultiple(of: 2) else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            for index in stride(from: 0, to: digits.count, by: 2) {
                guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
            }
            return .blob(Data(bytes))
        }
    }

    private func decodeTombstone(_ json: String, entity: String, change: Int64) throws -> [String: AttributeValue] {
        let texts: [String: String]
        do {
            texts = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        } catch {
            throw PostgresStoreError(.server, "the tombstone of history change \(change) is not the JSON object the store writes: \(error)")
        }
        var values: [String: AttributeValue] = [:]
        for (name, text) in texts {
            // An attribute the model no longer has (or stores) is left out.
            guard let attribute = mapping.entities[entity]?.attributes.first(where: { $0.attribute.name == name })?.attribute else { continue }
            guard let stored = Self.value(of: text, as: PostgresStorage(attribute.type)) else {
                throw PostgresStoreError(.server, "the tombstone of history change \(change) holds \(name) as \(text), which is no \(attribute.type)")
            }
            do {
                values[name] = try CoreDataColumnValues.decode(stored, for: attribute)
            } catch {
                throw PostgresStoreError(.server, "the tombstone of history change \(change) cannot be read: \(error)")
            }
        }
        return values
    }

    private static func json(_ values: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(values), as: UTF8.self)
    }

    /// `names` as a literal of PostgreSQL's `text[]`, each quoted, so that any name reads back.
    private static func textArrayLiteral(_ names: [String]) -> String {
        "{" + names.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }

    private static func date(_ cell: PostgresCell) throws -> Date {
        do {
            return try cell.decode(Date.self)
        } catch {
            throw PostgresStoreError(.server, "the column \(cell.columnName) holds a \(cell.dataType), not the timestamp the store wrote: \(error)")
        }
    }
}
