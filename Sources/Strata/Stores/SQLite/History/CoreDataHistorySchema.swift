import Foundation

/// Core Data's persistent history inside a SQLite store (`formats/coredata-persistent-history.md`,
/// whose sections are cited below): its three tables and their indexes, and per entity of the
/// model the properties an update's `ZCOLUMNS` bits name and the attributes a delete's
/// tombstone keeps. A pure function of the model and the store's column mapping.
package struct CoreDataHistorySchema: Sendable {
    /// The history entities' numbers and names in `Z_PRIMARYKEY` (§1), the PostgreSQL store's too.
    package static let changeEntity = (number: 16001, name: "CHANGE")
    package static let transactionEntity = (number: 16002, name: "TRANSACTION")
    static let stringEntity = (number: 16003, name: "TRANSACTIONSTRING")

    /// Per entity name, the property each bit of an update's `ZCOLUMNS` names (§4), in bit order.
    let changedPropertySlots: [String: [String]]
    /// Per entity name, the attributes a delete keeps in `ZTOMBSTONE0…` (§5), in slot order.
    let tombstoneAttributes: [String: [String]]
    /// How many `ZTOMBSTONE` columns `ACHANGE` has: the most any entity keeps.
    var tombstoneColumnCount: Int { tombstoneAttributes.values.map(\.count).max() ?? 0 }

    init(model: ManagedObjectModel, mapping: CoreDataTableMapping) {
        var slots: [String: [String]] = [:]
        var tombstones: [String: [String]] = [:]
        let byName = model.entitiesByName
        for entity in model.entities {
            guard let columns = mapping.entities[entity.name] else { continue }
            let levels = Self.levels(of: entity, in: byName)
            slots[entity.name] = Self.changedPropertySlots(levels: levels, columns: columns)
            tombstones[entity.name] = HistoryRecorder.tombstoneAttributes(
                of: entity, model: model, stored: columns.attributes.map(\.attribute))
        }
        changedPropertySlots = slots
        tombstoneAttributes = tombstones
    }

    /// The entity and its superentities, root first.
    private static func levels(of entity: EntityDescription, in byName: [String: EntityDescription]) -> [EntityDescription] {
        var chain = [entity]
        while let name = chain.last?.superentityName, let parent = byName[name], !chain.contains(where: { $0.name == name }) {
            chain.append(parent)
        }
        return chain.reversed()
    }

    /// §4: to-one keys, their `Z<n>_` entity columns, their `Z_FOK_` order columns, attribute
    /// columns, one-to-many and many-to-many relationships; in each group, inherited
    /// properties first (root level down), each level's own in name order.
    private static func changedPropertySlots(levels: [EntityDescription], columns: CoreDataTableMapping.Entity) -> [String] {
        let layout = columns.layout
        let toOnes = Dictionary(columns.toOnes.map { (layout.relationships[$0.slot].name, $0) }, uniquingKeysWith: { a, _ in a })
        let attributes = Set(columns.attributes.map(\.attribute.name))
        var oneToMany: Set<String> = []
        var manyToMany: Set<String> = []
        for toMany in columns.toManys {
            switch toMany.storage {
            case .inverseForeignKey: oneToMany.insert(layout.relationships[toMany.slot].name)
            case .joinTable: manyToMany.insert(layout.relationships[toMany.slot].name)
            }
        }
        let groups: [(String) -> Bool] = [
            { toOnes[$0] != nil }, { toOnes[$0]?.entityColumn != nil }, { toOnes[$0]?.orderColumn != nil },
            { attributes.contains($0) }, { oneToMany.contains($0) }, { manyToMany.contains($0) },
        ]
        let ownNames = levels.map { level in
            CoreDataSQLiteSchema.sortedNames(level.attributes.map(\.name) + level.relationships.map(\.name))
        }
        return groups.flatMap { belongs in ownNames.flatMap { $0.filter(belongs) } }
    }

    /// The bytes of `ZCOLUMNS` for an update of `entity` that changed `properties`:
    /// slot i is bit `0x80 >> (i % 8)` of byte `i / 8`.
    func columnBits(entity: String, changed properties: Set<String>) -> Data {
        let slots = changedPropertySlots[entity] ?? []
        var bytes = [UInt8](repeating: 0, count: (slots.count + 7) / 8)
        for (index, name) in slots.enumerated() where properties.contains(name) {
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return Data(bytes)
    }

    /// The properties the bits of `ZCOLUMNS` name, for an entity of this model.
    func changedProperties(entity: String, bits: Data) -> Set<String> {
        let slots = changedPropertySlots[entity] ?? []
        var names: Set<String> = []
        for (offset, byte) in bits.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let index = offset * 8 + bit
                if index < slots.count { names.insert(slots[index]) }
            }
        }
        return names
    }

    /// The statements that create the history tables with `tombstones` tombstone columns, and
    /// their indexes (§1, exactly as Core Data writes them).
    static func createStatements(tombstones: Int) -> [String] {
        let tombstoneColumns = (0..<tombstones).map { "ZTOMBSTONE\($0)" }.sorted().map { ", \($0) BLOB" }.joined()
        return [
            "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, "
                + "ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstoneColumns) )",
            "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, "
                + "ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, "
                + "ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
            "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
            "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ]
    }
}
