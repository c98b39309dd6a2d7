import Foundation
import Logging

/// Persistent history in Core Data's own tables (`ATRANSACTION`, `ACHANGE`,
/// `ATRANSACTIONSTRING`; `formats/coredata-persistent-history.md`, cited by section): written in
/// the save's own transaction, so that history written by Core Data reads here and the reverse.
extension SQLiteStore {
    private static let historyLogger = Logger(label: "strata.sqlite-store")

    /// The objects one transaction of history records: those inserted, those updated with the
    /// properties each changed, and those deleted with their tombstone values (read before their
    /// rows went; empty when the entity keeps none).
    struct HistoryChanges {
        var inserted: [ManagedObjectID] = []
        var updated: [ManagedObjectID: Set<String>] = [:]
        var deleted: [ManagedObjectID: [SQLValue]] = [:]
    }

    // MARK: Tables

    /// Creates the history tables of a store that tracks history and lacks them (§1), or makes a
    /// store that has them and is added without tracking read-only, as Core Data does: a save
    /// that recorded no history would go missing from it.
    func prepareHistory(writer: SQLiteConnection) throws {
        guard tracksPersistentHistory else {
            if try Self.hasHistoryTables(writer) {
                let reason =
                    "the store records persistent history (Core Data's or Strata's), and was added without the option "
                    + "persistentHistoryTracking: it is read-only, as in Core Data, so that no save goes missing from its history"
                forceReadOnly(because: reason)
                Self.historyLogger.warning("opened read-only: \(reason)", metadata: ["store": "\(fileURL.path)"])
            }
            return
        }
        try writer.writeTransaction {
            let tombstones = historySchema.tombstoneColumnCount
            if try Self.hasHistoryTables(writer) {
                // A model that keeps more attributes of deleted objects than the table has slots for.
                let existing = try tombstoneColumnCount(writer)
                for index in existing..<max(existing, tombstones) {
                    try writer.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB")
                }
            } else {
                for statement in CoreDataHistorySchema.createStatements(tombstones: tombstones) { try writer.execute(statement) }
            }
            let insert = try writer.statement(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) SELECT ?, ?, 0, 0 WHERE NOT EXISTS (SELECT 1 FROM Z_PRIMARYKEY WHERE Z_ENT = ?)")
            for entity in [CoreDataHistorySchema.changeEntity, CoreDataHistorySchema.transactionEntity, CoreDataHistorySchema.stringEntity] {
                try insert.run([.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.number))])
            }
        }
    }

    /// Whether the store at `url` records persistent history (has Core Data's history tables):
    /// then it must be added with ``PersistentStoreOption/persistentHistoryTracking`` to be written.
    package static func recordsPersistentHistory(at url: URL) throws -> Bool {
        do {
            return try hasHistoryTables(SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: defaultTimeout))
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
    }

    static func hasHistoryTables(_ connection: SQLiteConnection) throws -> Bool {
        try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ATRANSACTION', 'ACHANGE')") == .integer(2)
    }

    private func tombstoneColumnCount(_ connection: SQLiteConnection) throws -> Int {
        var count = 0
        try connection.statement("SELECT name FROM pragma_table_info('ACHANGE')").forEachRow { row in
            if case .text(let name) = row.value(0), name.hasPrefix("ZTOMBSTONE") { count += 1 }
        }
        return count
    }

    // MARK: Writing (§7)

    /// The values a deleted object's tombstone keeps, read before its row is deleted.
    func tombstoneValues(of entity: CoreDataTableMapping.Entity, reference: Int64, connection: SQLiteConnection) throws -> [SQLValue]? {
        guard let names = historySchema.tombstoneAttributes[entity.layout.name], !names.isEmpty else { return nil }
        let columns = names.compactMap { name in entity.attributes.first { $0.attribute.name == name }?.column }
        var values: [SQLValue]?
        try connection.statement("SELECT \(columns.joined(separator: ", ")) FROM \(entity.table) WHERE Z_PK = ?").forEachRow([.integer(reference)]) { row in
            values = (0..<Int32(columns.count)).map { row.value($0) }
        }
        return values
    }

    /// Records one save (or batch request) as a transaction with one change per object, in the
    /// save's own SQLite transaction (§7); `origin` says who saved.
    func recordHistory(_ changes: HistoryChanges, of origin: SaveHistory, connection: SQLiteConnection) throws {
        let count = changes.inserted.count + changes.updated.count + changes.deleted.count
        guard count > 0 else { return }
        let strings = try [origin.author, origin.bundleID, origin.contextName, origin.processID].map {
            try internHistoryString($0, connection: connection)
        }
        let transaction = try takeHistoryKeys(of: CoreDataHistorySchema.transactionEntity, count: 1, connection: connection)
        try connection.statement(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP, ZQUERYGEN) "
                + "VALUES (?, ?, NULL, ?, ?, ?, ?, ?, NULL)"
        ).run(
            [.integer(transaction), .integer(Int64(CoreDataHistorySchema.transactionEntity.number))] + strings
                + [.real(Date().timeIntervalSinceReferenceDate)])

        let tombstones = historySchema.tombstoneColumnCount
        let tombstoneColumns = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        let insert = try connection.statement(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns)) "
                + "VALUES (?, ?, NULL, ?, ?, ?, ?, ?\(String(repeating: ", ?", count: tombstones)))")
        var key = try takeHistoryKeys(of: CoreDataHistorySchema.changeEntity, count: count, connection: connection)
        func record(_ id: ManagedObjectID, _ type: PersistentHistoryChange.ChangeType, columns: SQLValue, tombstone: [SQLValue]) throws {
            guard let entity = mapping.entities[id.entityName], let reference = referenceObject(for: id) else { return }
            var values: [SQLValue] = [
                .integer(key), .integer(Int64(CoreDataHistorySchema.changeEntity.number)), .integer(Int64(type.rawValue)),
                .integer(Int64(entity.number)), .integer(reference), .integer(transaction), columns,
            ]
            values += (0..<tombstones).map { $0 < tombstone.count ? tombstone[$0] : .null }
            try insert.run(values)
            key += 1
        }
        for id in changes.inserted.sorted(by: RelationalHistory.recordingOrder) { try record(id, .insert, columns: .null, tombstone: []) }
        for (id, properties) in changes.updated.sorted(by: { RelationalHistory.recordingOrder($0.key, $1.key) }) {
            try record(id, .update, columns: .blob(historySchema.columnBits(entity: id.entityName, changed: properties)), tombstone: [])
        }
        for (id, tombstone) in changes.deleted.sorted(by: { RelationalHistory.recordingOrder($0.key, $1.key) }) {
            try record(id, .delete, columns: .null, tombstone: tombstone)
        }
    }

    /// The key of a string in `ATRANSACTIONSTRING`, added when it is new (§6); `NULL` for none.
    private func internHistoryString(_ string: String?, connection: SQLiteConnection) throws -> SQLValue {
        guard let string else { return .null }
        if let key = try connection.scalar("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [.text(string)]) { return key }
        let key = try takeHistoryKeys(of: CoreDataHistorySchema.stringEntity, count: 1, connection: connection)
        try connection.statement("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)")
            .run([.integer(key), .integer(Int64(CoreDataHistorySchema.stringEntity.number)), .text(string)])
        return .integer(key)
    }

    /// Takes `count` keys for rows of a history entity from `Z_PRIMARYKEY`; returns the first.
    private func takeHistoryKeys(of entity: (number: Int, name: String), count: Int, connection: SQLiteConnection) throws -> Int64 {
        let current: Int64
        switch try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(entity.number))]) {
        case .integer(let max)?:
            current = max
        case .null?:
            current = 0
        case nil:
            current = 0
            try connection.statement("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)")
                .run([.integer(Int64(entity.number)), .text(entity.name)])
        default:
            throw StoreError(.corruptFile, file: fileURL, "Z_PRIMARYKEY holds a Z_MAX that is not a number for \(entity.name)")
        }
        try connection.statement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            .run([.integer(current + Int64(count)), .integer(Int64(entity.number))])
        return current + 1
    }

    // MARK: Reading and deleting (§2, §3, §8)

    func readHistory(
        after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter
    ) throws -> [PersistentHistoryTransaction] {
        try sqlite {
            try withHistoryConnection { connection in
                guard try Self.hasHistoryTables(connection) else { return [] }
                var conditions: [String] = []
                var values: [SQLValue] = []
                switch position {
                case .token(let token):
                    if let number = token?.transactionNumbers[identifier] {
                        conditions.append("t.Z_PK > ?")
                        values.append(.integer(number))
                    }
                case .date(let date):
                    conditions.append("t.ZTIMESTAMP > ?")
                    values.append(.real(date.timeIntervalSinceReferenceDate))
                }
                switch authors {
                case .any: break
                case .only(let author):
                    conditions.append("COALESCE(a.ZNAME, t.ZAUTHOR) = ?")
                    values.append(.text(author))
                case .excluding(let author):
                    conditions.append("COALESCE(a.ZNAME, t.ZAUTHOR) IS NOT ?")
                    values.append(.text(author))
                }
                return try readTransactions(where: conditions, values, connection: connection)
            }
        }
    }

    private func readTransactions(where conditions: [String], _ values: [SQLValue], connection: SQLiteConnection) throws -> [PersistentHistoryTransaction] {
        struct Header {
            let number: Int64
            let timestamp: Double
            let strings: [String?]
        }
        var headers: [Header] = []
        let sql = """
            SELECT t.Z_PK, t.ZTIMESTAMP, COALESCE(a.ZNAME, t.ZAUTHOR), COALESCE(c.ZNAME, t.ZCONTEXTNAME),
                COALESCE(b.ZNAME, t.ZBUNDLEID), COALESCE(p.ZNAME, t.ZPROCESSID)
            FROM ATRANSACTION t
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS
            LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")) ORDER BY t.Z_PK
            """
        try connection.statement(sql).forEachRow(values) { row in
            let timestamp: Double
            switch row.value(1) {
            case .real(let value): timestamp = value
            case .integer(let value): timestamp = Double(value)
            default: timestamp = 0
            }
            let strings = (2..<6).map { column -> String? in
                if case .text(let text) = row.value(Int32(column)) { return text }
                return nil
            }
            headers.append(Header(number: row.int64(0), timestamp: timestamp, strings: strings))
        }
        guard let first = headers.first?.number, let last = headers.last?.number else { return [] }
        let changes = try readChanges(transactions: first...last, connection: connection)
        return headers.map { header in
            PersistentHistoryTransaction(
                transactionNumber: header.number, storeID: identifier, timestamp: Date(timeIntervalSinceReferenceDate: header.timestamp),
                author: header.strings[0], contextName: header.strings[1], bundleID: header.strings[2], processID: header.strings[3],
                changes: changes[header.number] ?? [])
        }
    }

    /// The changes of the transactions numbered in `range`, by transaction, in `Z_PK` order.
    private func readChanges(transactions range: ClosedRange<Int64>, connection: SQLiteConnection) throws -> [Int64: [PersistentHistoryChange]] {
        let tombstones = try tombstoneColumnCount(connection)
        let tombstoneColumns = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        var changes: [Int64: [PersistentHistoryChange]] = [:]
        var unknownEntities: Set<Int64> = []
        try connection.statement(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns) FROM ACHANGE "
                + "WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY Z_PK"
        ).forEachRow([.integer(range.lowerBound), .integer(range.upperBound)]) { row in
            let key = row.int64(0)
            guard let type = PersistentHistoryChange.ChangeType(rawValue: Int(row.int64(1))) else {
                throw StoreError(.corruptFile, file: fileURL, "the history change \(key) has the unknown change type \(row.int64(1))")
            }
            let entityNumber = row.int64(2)
            guard let entityName = mapping.entityNames[Int(entityNumber)] else {
                unknownEntities.insert(entityNumber)
                return
            }
            let objectID = objectID(entity: entityName, reference: row.int64(3))
            var updated: Set<String>?
            if type == .update, case .blob(let bits) = row.value(5) { updated = historySchema.changedProperties(entity: entityName, bits: bits) }
            var tombstone: [String: AttributeValue]?
            if type == .delete, let names = historySchema.tombstoneAttributes[entityName], !names.isEmpty,
                let entity = mapping.entities[entityName]
            {
                var values: [String: AttributeValue] = [:]
                for (index, name) in names.enumerated() where index < tombstones {
                    guard let attribute = entity.attributes.first(where: { $0.attribute.name == name })?.attribute else { continue }
                    do {
                        values[name] = try CoreDataColumnValues.decode(row.value(Int32(6 + index)), for: attribute, externalData: externalData)
                    } catch {
                        throw StoreError(.corruptFile, file: fileURL, "the tombstone of history change \(key) cannot be read: \(error)")
                    }
                }
                tombstone = values
            }
            let transaction = row.int64(4)
            changes[transaction, default: []].append(
                PersistentHistoryChange(
                    changeID: key, changedObjectID: objectID, changeType: type, updatedProperties: updated, tombstone: tombstone,
                    transactionNumber: transaction))
        }
        if !unknownEntities.isEmpty {
            Self.historyLogger.warning(
                "history names entities this model does not have; their changes are left out",
                metadata: ["store": "\(fileURL.path)", "entities": "\(unknownEntities.sorted())"])
        }
        return changes
    }

    package func removeHistory(before position: PersistentHistoryChangeRequest.Position) throws -> Int {
        guard let writer else {
            throw PersistenceError(.readOnlyStore, "the store \(identifier) is read-only: its history cannot be deleted")
        }
        restartLogIfDue(writer: writer)
        return try sqlite {
            try writer.writeTransaction {
                guard try Self.hasHistoryTables(writer) else { return 0 }
                return try RelationalHistory.removeTransactions(before: position, storeIdentifier: identifier, connection: SQLiteRelationalConnection(writer))
            }
        }
    }

    func readHistoryBounds() throws -> (last: Int64, firstKept: Int64) {
        try sqlite {
            try withHistoryConnection { connection in
                guard try Self.hasHistoryTables(connection) else { return (0, 1) }
                return try RelationalHistory.bounds(connection: SQLiteRelationalConnection(connection))
            }
        }
    }

    /// Runs `body` in a read transaction on the writer (the coordinator's queue owns it), or on
    /// a pooled connection for a store added read-only: history is read as the store has it now.
    private func withHistoryConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let pooled = writer == nil ? try pool.take() : nil
        defer { if let pooled { pool.giveBack(pooled) } }
        guard let connection = writer ?? pooled else { throw SQLiteError(extendedCode: 21, message: "the store has no connection") }
        try connection.run("BEGIN DEFERRED")
        do {
            let result = try body(connection)
            try connection.run("COMMIT")
            return result
        } catch {
            if !connection.isAutocommit { try? connection.run("ROLLBACK") }
            throw error
        }
    }
}
