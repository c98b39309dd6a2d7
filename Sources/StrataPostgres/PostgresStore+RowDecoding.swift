import OrderedCollections
import PostgresNIO
import Strata

/// Decoding: the cells of a read statement's rows into rows of their entities, by the decoders
/// a read makes once (``PostgresStore/rows(ofMembers:where:_:then:targets:connection:)``).
extension PostgresStore {
    /// Reads a row of ``selectStatement(for:where:targets:)`` with its entity's decoder: the
    /// only one for one entity, else the one of its `Z_ENT` (the statement's first column),
    /// through that entity's `positions`.
    struct MembersDecoder: Sendable {
        let decoders: [RowDecoder]
        /// Each entity's position, by its number.
        let members: [Int64: Int]
        let positions: [[Int]]?

        func decode(_ cells: some PostgresCells) throws -> (member: Int, reference: Int64, row: Row)? {
            guard let positions else { return try decoders[0].decode(cells).map { (0, $0.reference, $0.row) } }
            guard let number = try cells[0].int64(), let member = members[number] else { return nil }
            return try decoders[member].decode(RemappedCells(base: cells, positions: positions[member])).map { (member, $0.reference, $0.row) }
        }
    }

    /// A row's cells as one entity's decoder reads them, from a statement of several entities'
    /// columns: its `index`th at `positions[index]`.
    struct RemappedCells<Base: PostgresCells>: PostgresCells {
        let base: Base
        let positions: [Int]
        subscript(index: Int) -> PostgresCell { base[positions[index]] }
    }

    /// Reads the cells of a row of ``selectStatement(for:where:targets:)`` into a row of the entity.
    /// Object IDs are made in their entity's ID space, looked up once per read, not per ID.
    struct RowDecoder: Sendable {
        let table: CoreDataTableMapping.Entity
        let storages: [PostgresStorage]
        let toManyHasEntities: [Bool]
        let empty: Row
        /// By entity number; and each relationship's destination, for targets of no other entity.
        let spaces: [Int: ObjectIDSpace]
        let toOneSpaces: [ObjectIDSpace]
        let toManySpaces: [ObjectIDSpace]
        /// Each to-one's slot and destination's entity numbers, and each to-many's slot: what
        /// every row reads, without copying the mapping's column descriptions per row.
        let toOneSlots: [Int]
        let toOneNumbers: [ClosedRange<Int>]
        let toManySlots: [Int]
        /// Where the statement reads no to-many targets: each relationship's batch, whose
        /// faults the rows hold.
        let unread: [ToManyBatch]?

        init(store: PostgresStore, table: CoreDataTableMapping.Entity, unread: [ToManyBatch]? = nil) {
            self.table = table
            self.unread = unread
            storages = table.attributeTypes.map(PostgresStorage.init)
            toManyHasEntities = table.toManys.map(store.destinationHasSubentities)
            empty = Row(emptyFor: table.layout)
            let identifier = store.identifier
            spaces = store.spaceCache.spaces(store: identifier)
            toOneSpaces = table.toOnes.map { ObjectIDSpace.make(store: identifier, entityName: $0.destination) }
            toManySpaces = table.toManys.map { ObjectIDSpace.make(store: identifier, entityName: $0.destination) }
            toOneSlots = table.toOnes.map(\.slot)
            toOneNumbers = table.toOnes.map(\.destinationNumbers)
            toManySlots = table.toManys.map(\.slot)
        }

        func decode(_ cells: some PostgresCells) throws -> (reference: Int64, row: Row)? {
            guard let reference = try cells[0].int64() else { return nil }
            var row = empty
            row.version = try cells[1].int64() ?? 0
            // By the mapping's arrays, not its attribute columns: copying a column (its whole
            // attribute description) per cell cost a third of the decoding.
            let slots = table.attributeSlots
            for index in slots.indices { row.attributes[slots[index]] = try attributeValue(cells, index, of: reference) }
            var cell = 2 + slots.count
            for index in toOneSlots.indices {
                row.relationships[toOneSlots[index]] = .toOne(try toOneTarget(cells, index, at: cell, of: reference))
                cell += 2
            }
            if let unread {
                for index in toManySlots.indices { row.relationships[toManySlots[index]] = unread[index].fault(for: reference) }
                return (reference, row)
            }
            for (index, toMany) in table.toManys.enumerated() {
                let keys = try cells[cell].int64Array()
                cell += 1
                var entities: [Int64]?
                if toManyHasEntities[index] {
                    let numbers = try cells[cell].int64Array()
                    cell += 1
                    if let outside = numbers.first(where: { !toMany.destinationNumbers.contains(Int($0)) }) {
                        throw damaged(reference, table.layout.relationships[toMany.slot].name, outside)
                    }
                    entities = numbers
                }
                var targets = OrderedSet<ManagedObjectID>()
                targets.reserveCapacity(keys.count)
                for (position, key) in keys.enumerated() {
                    let space = entities.flatMap { position < $0.count ? spaces[Int($0[position])] : nil } ?? toManySpaces[index]
                    targets.append(ManagedObjectID(space: space, number: key))
                }
                row.relationships[toMany.slot] = .toMany(targets)
            }
            return (reference, row)
        }

        /// Appends the row `cells` hold to `columns`, as ``decode(_:)`` reads it into a row, its
        /// to-manys left to the read's batches (``unread``).
        func append(_ cells: some PostgresCells, to columns: inout ColumnsBeingRead) throws {
            guard let reference = try cells[0].int64() else { return }
            let version = try cells[1].int64() ?? 0
            let slots = table.attributeSlots
            for index in slots.indices { columns.attributes[slots[index]].append(try attributeValue(cells, index, of: reference)) }
            var cell = 2 + slots.count
            for index in toOneSlots.indices {
                columns.relationships[toOneSlots[index]].append(.toOne(try toOneTarget(cells, index, at: cell, of: reference)))
                cell += 2
            }
            columns.appendUnstored()
            columns.references.append(reference)
            columns.versions.append(version)
        }

        /// The value of the `index`th stored attribute, in the cell after `Z_PK` and `Z_OPT`.
        private func attributeValue(_ cells: some PostgresCells, _ index: Int, of reference: Int64) throws -> AttributeValue? {
            let stored = try cells[2 + index].value(as: storages[index])
            do {
                return try CoreDataColumnValues.decode(
                    stored, type: table.attributeTypes[index], allowsExternalStorage: table.attributeStoresExternally[index],
                    externalData: Self.noExternalFiles)
            } catch {
                let name = table.attributes[index].attribute.name
                throw PostgresStoreError(.server, "\(table.layout.name) \(reference): \(name): \(error)")
            }
        }

        /// The target of the `index`th to-one, whose key and entity number are at `cell` and the
        /// one after it; `nil` for none.
        private func toOneTarget(_ cells: some PostgresCells, _ index: Int, at cell: Int, of reference: Int64) throws -> ManagedObjectID? {
            let key = try cells[cell].int64()
            let number = try cells[cell + 1].int64()
            if let number, key != nil, !toOneNumbers[index].contains(Int(number)) {
                throw damaged(reference, table.layout.relationships[toOneSlots[index]].name, number)
            }
            let space = number.flatMap { spaces[Int($0)] } ?? toOneSpaces[index]
            return key.map { ManagedObjectID(space: space, number: $0) }
        }

        /// A PostgreSQL store keeps every value in its row: a value that names an external file
        /// was not written by it.
        private static func noExternalFiles(_ name: String) throws -> AttributeValue {
            throw PostgresStoreError(.damagedRow, "the value is stored in the external file \(name), and the store keeps no files")
        }

        /// A relationship's target of an entity outside its destination: a typed accessor would
        /// trap on it, so the read fails instead.
        private func damaged(_ reference: Int64, _ relationship: String, _ number: Int64) -> PostgresStoreError {
            PostgresStoreError(
                .damagedRow,
                "\(table.layout.name) \(reference): \(relationship) names an object of entity number \(number), "
                    + "which is not its destination's; the row was not written by a store of this model")
        }
    }
}
