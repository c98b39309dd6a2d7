import Foundation
import Strata

/// A read-only look at a SQLite store's tables, for the commands that check one.
struct SQLiteInspection {
    private let connection: SQLiteConnection
    let url: URL

    init(url: URL) throws {
        self.url = url
        do {
            connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: .seconds(5))
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
    }

    /// The rows of a statement's first column, as text.
    func texts(_ sql: String, _ values: [SQLValue] = []) throws -> [String] {
        try sqlite {
            var result: [String] = []
            try connection.statement(sql).forEachRow(values) { row in
                switch row.value(0) {
                case .text(let text): result.append(text)
                case .integer(let number): result.append("\(number)")
                case .real(let number): result.append("\(number)")
                case .blob(let data): result.append("\(data.count) bytes")
                case .null: result.append("NULL")
                }
            }
            return result
        }
    }

    func text(_ sql: String) throws -> String? { try texts(sql).first }

    /// Every table with its columns' names.
    func tableColumns() throws -> [String: [String]] {
        try sqlite { try connection.tableColumns() }
    }

    func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64 {
        try sqlite {
            guard case .integer(let number)? = try connection.scalar(sql, values) else { return 0 }
            return number
        }
    }

    /// The checks every relational store gets (``RelationalStoreCheck``), run on this file.
    func relationalCheck(mapping: CoreDataTableMapping, checkingRows: Bool) throws -> RelationalStoreCheck<SQLiteRelationalConnection> {
        var check = RelationalStoreCheck(connection: SQLiteRelationalConnection(connection), mapping: mapping)
        let columns = try tableColumns().mapValues(Set.init)
        try sqlite { try check.run(columns: columns, checkingRows: checkingRows) }
        return check
    }

    /// The bytes of Core Data's model cache, 0 when there is none.
    func modelCacheSize() throws -> Int64 {
        guard try integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'") == 1 else { return 0 }
        return try integer("SELECT coalesce(sum(length(Z_CONTENT)), 0) FROM Z_MODELCACHE")
    }

    /// How many rows of each entity the store's tables hold, by the model's entity numbers.
    func objectCounts(model: ManagedObjectModel) throws -> [String: Int] {
        let mapping = CoreDataTableMapping(model: model, existingTables: try tableColumns())
        var counts: [String: Int] = [:]
        for entity in mapping.entities.values {
            counts[entity.layout.name] = Int(try integer("SELECT count(*) FROM \(entity.table) WHERE Z_ENT = ?", [.integer(Int64(entity.number))]))
        }
        return counts
    }

    private func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
    }
}
