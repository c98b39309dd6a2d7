import Foundation

/// Where each slot of each entity's rows lives in Core Data's tables (a SQLite store's, and the
/// PostgreSQL store's, which keeps the same layout): the columns of its table, the foreign keys of its to-one relationships, and where its to-many relationships are
/// found (the inverse's foreign key in the destination's table, or a join table). Built once
/// per store from ``CoreDataSQLiteSchema``, so that reading and writing follow the same rules
/// the schema was made by.
package struct CoreDataTableMapping: Sendable {
    package struct AttributeColumn: Sendable {
        package let slot: Int
        package let column: String
        package let attribute: AttributeDescription
    }

    package struct ToOneColumn: Sendable {
        package let slot: Int
        package let column: String
        /// `Z<n>_REL`: the target's entity number, when the destination has subentities.
        package let entityColumn: String?
        /// `Z_FOK_REL`: this row's position in the target's ordered to-many (the inverse).
        package let orderColumn: String?
        package let destination: String
        package let destinationTable: String
        /// The entity numbers a target may have: the destination's and its subentities'
        /// (consecutive, §1).
        package let destinationNumbers: ClosedRange<Int>
    }

    package enum ToMany: Sendable {
        /// The inverse is a to-one: the destination's table holds the foreign key.
        case inverseForeignKey(table: String, column: String, orderColumn: String?)
        /// Both sides are to-many: a join table with this object's key in `ownColumn`; the
        /// target's order in this object's set, if ordered, is in `orderColumn`.
        case joinTable(table: String, ownColumn: String, otherColumn: String, orderColumn: String?, otherOrderColumn: String?,
                       destinationTable: String)

        /// Whether the relationship is ordered (its targets' positions are stored).
        package var isOrdered: Bool {
            switch self {
            case .inverseForeignKey(_, _, let order), .joinTable(_, _, _, let order, _, _): order != nil
            }
        }
    }

    package struct ToManySlot: Sendable {
        package let slot: Int
        package let storage: ToMany
        package let destination: String
        /// The entity numbers a target may have: the destination's and its subentities'.
        package let destinationNumbers: ClosedRange<Int>
    }

    /// A class, not a struct: a save or a read hands an entity's mapping on per row, and a
    /// struct of seventeen arrays and strings would be retained field by field each time.
    package final class Entity: Sendable {
        package let layout: EntityLayout
        package let number: Int
        package let table: String
        package let attributes: [AttributeColumn]
        package let toOnes: [ToOneColumn]
        package let toManys: [ToManySlot]
        /// The attributes a save writes: all but derived ones a trigger of the store keeps.
        package let storedAttributes: [AttributeColumn]
        /// What reading and writing a row need of each attribute, in ``attributes``' order, as
        /// plain arrays: a loop over them copies no attribute description per row.
        package let attributeSlots: [Int]
        package let attributeTypes: [AttributeType]
        package let attributeStoresExternally: [Bool]
        /// Positions in ``attributes`` of the ``storedAttributes``.
        package let storedAttributeIndices: [Int]
        /// `INSERT` of a whole row (`Z_PK, Z_ENT, Z_OPT`, then ``writtenColumns``), in SQLite's
        /// dialect: a batch insert's.
        package let insertSQL: String
        /// Each to-one's slot, and whether it has a `Z<n>_` entity column, in ``toOnes``' order.
        package let toOneSlots: [Int]
        package let toOneHasEntityColumn: [Bool]
        /// Every written column, as positions: the stored attributes, then the to-ones.
        package let writtenColumns: [Int]
        /// Whether a save writes anything for this entity's to-many relationships beyond the
        /// rows' own columns: join tables, or positions in an ordered to-many.
        package let writesToManys: Bool
        /// ``select(where:extraJoins:)``'s columns and table, and its to-ones' joins: made once,
        /// not at every read (building them was 4% of the samples of 1,000 lookups by key).
        private let selectColumns: String
        private let toOneJoins: String

        init(
            layout: EntityLayout, number: Int, table: String, attributes: [AttributeColumn], toOnes: [ToOneColumn], toManys: [ToManySlot],
            keptByTriggers: Set<String> = []
        ) {
            self.layout = layout
            self.number = number
            self.table = table
            self.attributes = attributes
            self.toOnes = toOnes
            self.toManys = toManys
            storedAttributeIndices = attributes.indices.filter { !keptByTriggers.contains(attributes[$0].attribute.name) }
            storedAttributes = storedAttributeIndices.map { attributes[$0] }
            attributeSlots = attributes.map(\.slot)
            attributeTypes = attributes.map(\.attribute.type)
            attributeStoresExternally = attributes.map(\.attribute.allowsExternalBinaryDataStorage)
            toOneSlots = toOnes.map(\.slot)
            writtenColumns = Array(0..<(storedAttributeIndices.count + toOnes.count))
            toOneHasEntityColumn = toOnes.map { $0.entityColumn != nil }
            writesToManys = toManys.contains { toMany in
                switch toMany.storage {
                case .inverseForeignKey(_, _, let order): order != nil
                case .joinTable: true
                }
            }
            let written = storedAttributes.map(\.column) + toOnes.flatMap { [$0.column] + ($0.entityColumn.map { [$0] } ?? []) }
            let inserted = ["Z_PK", "Z_ENT", "Z_OPT"] + written
            insertSQL = "INSERT INTO \(table) (\(inserted.joined(separator: ", "))) VALUES (\(inserted.map { _ in "?" }.joined(separator: ", ")))"
            var columns = ["t.Z_PK", "t.Z_OPT"] + attributes.map { "t.\($0.column)" }
            var joins: [String] = []
            for (index, toOne) in toOnes.enumerated() {
                columns += ["t.\(toOne.column)", "d\(index).Z_ENT"]
                joins.append("LEFT JOIN \(toOne.destinationTable) d\(index) ON d\(index).Z_PK = t.\(toOne.column)")
            }
            selectColumns = "SELECT \(columns.joined(separator: ", ")) FROM \(table) t"
            toOneJoins = joins.joined(separator: " ")
        }

        /// The rows of the entity that `condition` (on the table as `t`) selects: `Z_PK, Z_OPT`,
        /// then the attribute columns, then for each to-one its key and the `Z_ENT` of the row
        /// it names, looked up in the destination's table. The lookup is what tells a key to
        /// an object the store does not hold (a damaged file) from one it does, so that reading
        /// one gives an error rather than a fault nothing can fulfil; and it gives the target's
        /// own entity, whatever the `Z<n>_` column says.
        /// `extraJoins` join more tables, for the ordering (see `RelationalJoinedColumns`).
        package func select(where condition: String, extraJoins: [String] = []) -> String {
            let joins = extraJoins.isEmpty ? toOneJoins : (extraJoins + [toOneJoins]).joined(separator: " ")
            return "\(selectColumns) \(joins) WHERE \(condition)"
        }
    }

    package let schema: CoreDataSQLiteSchema
    package let entities: [String: Entity]
    package let entityNames: [Int: String]
    /// Relationships Strata cannot store yet in Core Data's format: to-many without an inverse.
    package let unsupported: [String]

    /// Whether `members` are every entity whose rows their table holds (a hierarchy's root and
    /// all its subentities): a read of all of them needs no `Z_ENT` test, and an index on a sort
    /// key then serves a sorted read alone, where SQLite would pick the `Z_ENT` index and sort
    /// every row of the table.
    package func coverTheirTable(_ members: [Entity]) -> Bool {
        guard let table = members.first?.table else { return false }
        return entities.values.allSatisfy { entity in entity.table != table || members.contains { $0.number == entity.number } }
    }

    /// - Parameters:
    ///   - existingTables: For a store that exists, its tables and their columns: its join tables
    ///     are read where the file has them (``CoreDataSQLiteSchema/adopting(existingTables:)``).
    ///   - derivedByTriggers: The derived attributes ("Entity.attribute") the database keeps with
    ///     triggers, which saves do not write; every other derived attribute is written with the
    ///     value the saving context computed.
    package init(model: ManagedObjectModel, existingTables: [String: [String]] = [:], derivedByTriggers: Set<String> = []) {
        let schema = CoreDataSQLiteSchema(model: model).adopting(existingTables: existingTables)
        self.schema = schema
        var entities: [String: Entity] = [:]
        var unsupported: [String] = []
        let numbers = Dictionary(schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let tables = Dictionary(schema.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let byName = model.entitiesByName

        /// The entity of `entity`'s lineage that declares `property`.
        func declaring(_ property: String, from entity: String) -> String {
            var current: String? = entity
            while let name = current, let description = byName[name] {
                if description.attributes.contains(where: { $0.name == property })
                    || description.relationships.contains(where: { $0.name == property })
                {
                    return name
                }
                current = description.superentityName
            }
            return entity
        }
        func hierarchySize(_ entity: String) -> Int {
            model.layout(for: entity)?.hierarchyNames.count ?? 1
        }
        func column(in table: String, where matches: (CoreDataSQLiteSchema.Column.Role) -> Bool) -> String? {
            tables[table]?.columns.first { matches($0.role) }?.name
        }

        for layout in model.entities.compactMap({ model.layout(for: $0.name) }) {
            guard let own = numbers[layout.name] else { continue }
            var attributes: [AttributeColumn] = []
            for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
                let owner = declaring(attribute.name, from: layout.name)
                guard let name = column(in: own.table, where: { $0 == .attribute(entity: owner, name: attribute.name) }) else { continue }
                attributes.append(AttributeColumn(slot: slot, column: name, attribute: attribute))
            }
            var toOnes: [ToOneColumn] = []
            var toManys: [ToManySlot] = []
            for (slot, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
                let owner = declaring(relationship.name, from: layout.name)
                guard let destination = numbers[relationship.destinationEntityName] else { continue }
                let destinationNumbers = destination.number...(destination.number + max(0, hierarchySize(relationship.destinationEntityName) - 1))
                if !relationship.isToMany {
                    guard let key = column(in: own.table, where: { $0 == .foreignKey(entity: owner, relationship: relationship.name) })
                    else { continue }
                    toOnes.append(
                        ToOneColumn(
                            slot: slot, column: key,
                            entityColumn: column(in: own.table, where: { $0 == .foreignEntity(entity: owner, relationship: relationship.name) }),
                            orderColumn: column(in: own.table, where: { $0 == .foreignOrder(entity: owner, relationship: relationship.name) }),
                            destination: relationship.destinationEntityName, destinationTable: destination.table,
                            destinationNumbers: destinationNumbers))
                    continue
                }
                guard let inverseName = relationship.inverseName,
                    let inverse = byName[relationship.destinationEntityName]?.relationshipsByName[inverseName]
                else {
                    unsupported.append("\(layout.name).\(relationship.name)")
                    continue
                }
                let inverseOwner = declaring(inverseName, from: relationship.destinationEntityName)
                if !inverse.isToMany {
                    guard let key = column(in: destination.table, where: { $0 == .foreignKey(entity: inverseOwner, relationship: inverseName) })
                    else { continue }
                    let order = relationship.isOrdered
                        ? column(in: destination.table, where: { $0 == .foreignOrder(entity: inverseOwner, relationship: inverseName) }) : nil
                    toManys.append(
                        ToManySlot(
                            slot: slot, storage: .inverseForeignKey(table: destination.table, column: key, orderColumn: order),
                            destination: relationship.destinationEntityName, destinationNumbers: destinationNumbers))
                    continue
                }
                let mine = "\(owner).\(relationship.name)"
                guard let join = schema.joinTables.first(where: { $0.owner == mine || $0.inverse == mine }), join.columns.count >= 2 else {
                    continue
                }
                // The owning side's key is in the first column, the inverse side's in the second
                // (a relationship that is its own inverse owns its table); a position column is
                // named after the column whose object it places.
                let (ownColumn, otherColumn) = join.owner == mine ? (join.columns[0], join.columns[1]) : (join.columns[1], join.columns[0])
                func position(of column: String) -> String? {
                    join.columns.first { $0 == "Z_FOK_" + column.dropFirst(2) || (column == "REFLEXIVE" && $0 == "FOK_REFLEXIVE") }
                }
                toManys.append(
                    ToManySlot(
                        slot: slot,
                        storage: .joinTable(
                            table: join.name, ownColumn: ownColumn, otherColumn: otherColumn,
                            orderColumn: relationship.isOrdered ? position(of: otherColumn) : nil,
                            otherOrderColumn: inverse.isOrdered ? position(of: ownColumn) : nil,
                            destinationTable: destination.table),
                        destination: relationship.destinationEntityName, destinationNumbers: destinationNumbers))
            }
            let kept = Set(attributes.map(\.attribute.name).filter { derivedByTriggers.contains("\(declaring($0, from: layout.name)).\($0)") })
            entities[layout.name] = Entity(
                layout: layout, number: own.number, table: own.table, attributes: attributes, toOnes: toOnes, toManys: toManys,
                keptByTriggers: kept)
        }
        self.entities = entities
        entityNames = Dictionary(schema.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        self.unsupported = unsupported.sorted()
    }
}
