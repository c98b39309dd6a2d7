import Foundation

extension SQLiteStoreMigration.StepRun {
    // MARK: Many-to-many links

    /// Fills a destination join table from wherever the source kept the same links: its own
    /// join table, or, for a to-one that became a to-many, the foreign keys of either side.
    mutating func copyLinks(into join: CoreDataSQLiteSchema.JoinTable) throws {
        let parts = join.owner.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let owner = to.entities[parts[0]],
            let slot = owner.toManys.first(where: { owner.layout.relationships[$0.slot].name == parts[1] }),
            case .joinTable(_, let ownColumn, let otherColumn, let orderColumn, let otherOrderColumn, _) = slot.storage,
            let entityMapping = step.mapping.mapping(forDestination: owner.layout.name),
            let sourceName = entityMapping.sourceEntityName, let source = from.entities[sourceName],
            let key = entityMapping.relationshipMappings.first(where: { $0.name == parts[1] }).flatMap({ mapping -> String? in
                if case .sourceKey(let key) = mapping.value { return key }
                return nil
            }),
            let pairs = links(of: key, in: source)
        else { return }
        let owners = survivors(becoming: owner.layout.name)
        let targets = survivors(becoming: slot.destination)
        var columns = [ownColumn, otherColumn]
        var values = ["p.o", "p.d"]
        if let orderColumn {
            columns.append(orderColumn)
            values.append("COALESCE(p.pos, p.d)")
        }
        if let otherOrderColumn {
            columns.append(otherOrderColumn)
            values.append("COALESCE(p.rev, p.o)")
        }
        let sql = "INSERT INTO \(join.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
            + "FROM (\(pairs.select)) p "
            + "WHERE p.o IN (SELECT Z_PK FROM \(Self.old(source.table)) WHERE Z_ENT IN (\(owners))) "
            + "AND p.d IN (SELECT Z_PK FROM \(Self.old(pairs.targetTable)) WHERE Z_ENT IN (\(targets)))"
        try connection.execute(sql)
    }

    /// The source's links of relationship `key` of `entity` as rows `(o, d, pos, rev)`: the
    /// owner's key, the target's, the target's position in the owner's ordered set, and the
    /// owner's in the target's.
    private func links(of key: String, in entity: CoreDataTableMapping.Entity) -> (select: String, targetTable: String)? {
        if let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }) {
            let rev = toOne.orderColumn.map { "t.\($0)" } ?? "NULL"
            return ("SELECT t.Z_PK AS o, t.\(toOne.column) AS d, NULL AS pos, \(rev) AS rev FROM \(Self.old(entity.table)) t WHERE t.\(toOne.column) IS NOT NULL",
                    toOne.destinationTable)
        }
        guard let toMany = entity.toManys.first(where: { entity.layout.relationships[$0.slot].name == key }),
            let targetTable = from.entities[toMany.destination]?.table
        else { return nil }
        switch toMany.storage {
        case .inverseForeignKey(let table, let column, let orderColumn):
            let pos = orderColumn.map { "x.\($0)" } ?? "NULL"
            return ("SELECT x.\(column) AS o, x.Z_PK AS d, \(pos) AS pos, NULL AS rev FROM \(Self.old(table)) x WHERE x.\(column) IS NOT NULL", targetTable)
        case .joinTable(let table, let ownColumn, let otherColumn, let orderColumn, let otherOrderColumn, _):
            let pos = orderColumn.map { "j.\($0)" } ?? "NULL", rev = otherOrderColumn.map { "j.\($0)" } ?? "NULL"
            return ("SELECT j.\(ownColumn) AS o, j.\(otherColumn) AS d, \(pos) AS pos, \(rev) AS rev FROM \(Self.old(table)) j", targetTable)
        }
    }

    /// The source entity numbers whose objects become `entity` or one of its subentities, as
    /// an SQL list.
    private func survivors(becoming entity: String) -> String {
        let hierarchy = Set(MappingModel.destinationHierarchy(of: entity, in: step.destination).compactMap { to.entities[$0]?.number })
        let list = numbers.filter { hierarchy.contains($0.value) }.keys.sorted()
        return list.isEmpty ? "NULL" : list.map(String.init).joined(separator: ", ")
    }

    // MARK: Requirements

    /// Checks, in the new tables, what the step makes required (`DataRequirements`): each
    /// object that lacks it is listed (or, with `fillsMissingValues`, an attribute gets its
    /// type's zero value).
    mutating func checkRequirements(store: String) throws {
        let requirements = DataRequirements(mapping: step.mapping, source: step.source, destination: step.destination)
        guard !requirements.isEmpty else { return }
        for entityMapping in step.mapping.entityMappings where entityMapping.sourceEntityName != nil {
            guard let name = entityMapping.destinationEntityName, let entity = to.entities[name] else { continue }
            let table = entity.table
            for requirement in requirements.requirements(for: name) {
                let missing: String
                switch requirement.slot {
                case .attribute(let index, let attribute):
                    guard let column = entity.attributes.first(where: { $0.slot == index })?.column else { continue }
                    missing = "t.\(column) IS NULL"
                    if migration.fillsMissingValues, let zero = DataRequirements.zero(of: attribute) {
                        try connection.statement(
                            "UPDATE \(table) SET \(column) = ? WHERE Z_PK IN (SELECT t.Z_PK FROM \(table) t WHERE t.Z_ENT = \(entity.number) AND \(missing))")
                            .run([CoreDataColumnValues.encode(zero, for: attribute)])
                        if connection.changes > 0 { filled[requirement.place, default: 0] += connection.changes }
                        continue
                    }
                case .relationship(let index):
                    if let toOne = entity.toOnes.first(where: { $0.slot == index }) {
                        missing = "t.\(toOne.column) IS NULL"
                    } else if let toMany = entity.toManys.first(where: { $0.slot == index }) {
                        switch toMany.storage {
                        case .inverseForeignKey(let other, let column, _):
                            missing = "NOT EXISTS (SELECT 1 FROM \(other) x WHERE x.\(column) = t.Z_PK)"
                        case .joinTable(let other, let ownColumn, _, _, _, _):
                            missing = "NOT EXISTS (SELECT 1 FROM \(other) x WHERE x.\(ownColumn) = t.Z_PK)"
                        }
                    } else {
                        continue
                    }
                }
                try connection.statement("SELECT t.Z_PK FROM \(table) t WHERE t.Z_ENT = \(entity.number) AND \(missing) ORDER BY t.Z_PK")
                    .forEachRow { row in
                        let uri = ManagedObjectID.make(store: store, entity: name, reference: row.int64(0)).uriRepresentation().absoluteString
                        failures.append(missing: "\(uri): \(requirement.place): \(requirement.rule)")
                    }
            }
        }
    }

    // MARK: Conversions

    /// Rewrites, row by row, the values whose stored form the step changes (see
    /// ``needsConversion(from:to:)``), as the binary store's migration converts them; a value
    /// that does not fit is listed and fails the migration.
    mutating func convertValues(store: String) throws {
        for entityMapping in step.mapping.entityMappings {
            guard let sourceName = entityMapping.sourceEntityName, let name = entityMapping.destinationEntityName,
                let source = from.entities[sourceName], let entity = to.entities[name]
            else { continue }
            for property in entityMapping.attributeMappings {
                guard case .sourceKey(let key) = property.value,
                    let origin = source.attributes.first(where: { $0.attribute.name == key }),
                    let target = entity.attributes.first(where: { $0.attribute.name == property.name }),
                    Self.needsConversion(from: origin.attribute, to: target.attribute)
                else { continue }
                try convert(target, from: origin, of: source, in: entity, store: store)
            }
        }
    }

    /// Whether a value changes its stored form when `source` becomes `destination`. Numbers
    /// stay as Core Data leaves them (the store reads any number as its attribute's type),
    /// except into an integer type, where a fraction is truncated and a number too large for
    /// it fails, as ``TypeConversion`` decides.
    static func needsConversion(from source: AttributeDescription, to destination: AttributeDescription) -> Bool {
        if source.type == destination.type {
            return source.type == .binaryData && source.allowsExternalBinaryDataStorage != destination.allowsExternalBinaryDataStorage
        }
        let numbers = TypeConversion.numericFamily
        if numbers.contains(source.type), numbers.contains(destination.type) {
            return [.integer16, .integer32, .integer64].contains(destination.type)
        }
        return !(Set([source.type, destination.type]) == [.binaryData, .transformable])
    }

    /// Reads each value from the old table, where it has its old stored form (the new column's
    /// affinity may have changed it: a REAL copied into a VARCHAR column becomes text).
    private mutating func convert(
        _ column: CoreDataTableMapping.AttributeColumn, from origin: CoreDataTableMapping.AttributeColumn,
        of source: CoreDataTableMapping.Entity, in entity: CoreDataTableMapping.Entity, store: String
    ) throws {
        let select = try connection.statement(
            "SELECT Z_PK, \(origin.column) FROM \(Self.old(source.table)) WHERE Z_ENT = \(source.number) AND \(origin.column) IS NOT NULL "
                + "AND Z_PK > ? ORDER BY Z_PK LIMIT 1000")
        let update = try connection.statement("UPDATE \(entity.table) SET \(column.column) = ? WHERE Z_PK = ?")
        let place = "\(entity.layout.name).\(column.attribute.name)"
        var last = Int64.min
        while true {
            var batch: [(Int64, SQLValue)] = []
            try select.forEachRow([.integer(last)]) { row in batch.append((row.int64(0), row.value(1))) }
            guard let end = batch.last?.0 else { return }
            for (reference, stored) in batch {
                let uri = { ManagedObjectID.make(store: store, entity: entity.layout.name, reference: reference).uriRepresentation().absoluteString }
                guard let value = try? CoreDataColumnValues.decode(stored, for: origin.attribute) else {
                    failures.append(lost: "\(uri()): \(place): its stored value does not read as a \(origin.attribute.type.rawValue)")
                    continue
                }
                guard let converted = TypeConversion.convert(value, to: column.attribute.type) else {
                    failures.append(lost: "\(uri()): \(place): its \(value.type.rawValue) value does not fit a \(column.attribute.type.rawValue) attribute (§4)")
                    continue
                }
                try update.run([CoreDataColumnValues.encode(converted, for: column.attribute), .integer(reference)])
            }
            last = end
        }
    }
}
