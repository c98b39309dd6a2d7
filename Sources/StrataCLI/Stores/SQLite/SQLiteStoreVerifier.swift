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
        let mapping = CoreDataTableMapping(model: model, existingTables: try inspection.tableColumns())
        let check = try inspection.relationalCheck(mapping: mapping, checkingRows: problems.isEmpty)
        problems += check.problems
        guard problems.isEmpty else { return }
        objectCount = check.objectCounts.values.reduce(0, +)
        for entity in mapping.entities.values.sorted(by: { $0.number < $1.number }) { try checkExternalData(of: entity) }
    }

    /// Every externally stored value of the entity's own objects (§8: `0x02`, a UUID, NUL)
    /// whose file in `.<store>_SUPPORT/_EXTERNAL_DATA` is missing or unreadable, by name.
    private mutating func checkExternalData(of entity: CoreDataTableMapping.Entity) throws {
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
