import Foundation
import Strata

/// Checks a SQLite store whole: SQLite's own integrity check; then, with the model that wrote it
/// (given, or carried by the store), that the tables and columns Core Data's schema has for that
/// model are there, that every to-one key and join-table row points at a stored object, and that
/// `Z_PRIMARYKEY` will not hand out a reference number that is already taken.
struct SQLiteStoreVerifier {
    let inspection: SQLiteInspection
    var model: ManagedObjectModel?
    /// Whether a model was given (`--model`), whether or not it matched the store.
    var modelWasGiven = false
    private(set) var objectCount = 0
    var problems: [String] = []
    /// What could not be checked, and why.
    var notes: [String] = []

    init(url: URL) throws {
        inspection = try SQLiteInspection(url: url)
    }

    mutating func run() throws {
        let integrity = try inspection.texts("PRAGMA integrity_check")
        if integrity != ["ok"] { problems += integrity.map { "SQLite integrity check: \($0)" } }
        guard let model else {
            // A model given that did not write the store is a problem already reported.
            if !modelWasGiven { notes.append("the store carries no model and none was given (--model): only SQLite's integrity check ran") }
            return
        }
        let mapping = CoreDataSQLiteMapping(model: model, existingTables: try inspection.tableColumns())
        var missingTables: Set<String> = []
        for table in mapping.schema.tables {
            let columns = Set(try inspection.texts("SELECT name FROM pragma_table_info(?)", [.text(table.name)]))
            if columns.isEmpty {
                problems.append("the table \(table.name) is missing")
                missingTables.insert(table.name)
                continue
            }
            let missing = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).filter { !columns.contains($0) }
            if !missing.isEmpty { problems.append("the table \(table.name) lacks the column(s) \(missing.joined(separator: ", "))") }
        }
        for join in mapping.schema.joinTables {
            let columns = Set(try inspection.texts("SELECT name FROM pragma_table_info(?)", [.text(join.name)]))
            if columns.isEmpty {
                problems.append("the join table \(join.name) is missing")
                missingTables.insert(join.name)
            } else if !Set(join.columns).isSubset(of: columns) {
                problems.append("the join table \(join.name) lacks columns of \(join.columns.joined(separator: ", "))")
                missingTables.insert(join.name)
            }
        }
        guard problems.isEmpty else { return }
        for entity in mapping.schema.entities {
            let rows = try inspection.integer("SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(entity.number))])
            if rows != 1 { problems.append("Z_PRIMARYKEY has no row for \(entity.name) (entity \(entity.number))") }
        }
        for entity in mapping.entities.values.sorted(by: { $0.number < $1.number }) {
            objectCount += Int(try inspection.integer("SELECT count(*) FROM \(entity.table) WHERE Z_ENT = ?", [.integer(Int64(entity.number))]))
            try checkExternalData(of: entity)
            for toOne in entity.toOnes {
                guard let destination = mapping.entities[toOne.destination] else { continue }
                let dangling = try inspection.integer(
                    "SELECT count(*) FROM \(entity.table) a WHERE a.Z_ENT = ? AND a.\(toOne.column) IS NOT NULL "
                        + "AND NOT EXISTS (SELECT 1 FROM \(destination.table) d WHERE d.Z_PK = a.\(toOne.column))",
                    [.integer(Int64(entity.number))])
                if dangling > 0 { problems.append("\(dangling) \(entity.layout.name) object(s) point at missing objects through \(toOne.column)") }
            }
            for toMany in entity.toManys {
                guard case .joinTable(let table, let own, let other, _, _, let destinationTable) = toMany.storage else { continue }
                let dangling = try inspection.integer(
                    "SELECT count(*) FROM \(table) j WHERE NOT EXISTS (SELECT 1 FROM \(entity.table) s WHERE s.Z_PK = j.\(own)) "
                        + "OR NOT EXISTS (SELECT 1 FROM \(destinationTable) d WHERE d.Z_PK = j.\(other))")
                if dangling > 0 { problems.append("\(dangling) row(s) of \(table) point at missing objects") }
            }
        }
        for root in mapping.schema.entities where root.superNumber == 0 {
            let highest = try inspection.integer("SELECT coalesce(max(Z_PK), 0) FROM \(root.table)")
            let counter = try inspection.integer("SELECT coalesce(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(root.number))])
            if highest > counter {
                problems.append("Z_PRIMARYKEY's Z_MAX for \(root.name) is \(counter), below the highest Z_PK \(highest): numbers would be handed out twice")
            }
        }
    }

    /// Every externally stored value of the entity's own objects (§8: `0x02`, a UUID, NUL)
    /// whose file in `.<store>_SUPPORT/_EXTERNAL_DATA` is missing or unreadable, by name.
    private mutating func checkExternalData(of entity: CoreDataSQLiteMapping.Entity) throws {
        for attribute in entity.attributes where attribute.attribute.allowsExternalBinaryDataStorage {
            let references = try inspection.texts(
                "SELECT Z_PK || ' ' || CAST(substr(\(attribute.column), 2, 36) AS TEXT) FROM \(entity.table) "
                    + "WHERE Z_ENT = ? AND substr(\(attribute.column), 1, 1) = x'02' ORDER BY Z_PK",
                [.integer(Int64(entity.number))])
            for reference in references {
                let parts = reference.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                let file = SQLiteStore.externalDataFile(parts[1], store: inspection.url)
                if !FileManager.default.isReadableFile(atPath: file.path) {
                    problems.append("\(entity.layout.name) p\(parts[0]).\(attribute.attribute.name): its external file \(file.path) is missing or unreadable")
                }
            }
        }
    }
}
