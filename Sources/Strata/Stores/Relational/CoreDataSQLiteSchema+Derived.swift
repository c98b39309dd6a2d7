extension CoreDataSQLiteSchema {
    /// A trigger Core Data keeps a derived attribute with (§7).
    package struct Trigger: Sendable, Hashable {
        package let name: String
        package let sql: String
        /// The derived attribute it keeps, as "Entity.attribute" (the declaring entity).
        package let attribute: String
    }

    /// §7: the triggers Core Data writes for a derived attribute that counts a to-many
    /// relationship kept by a foreign key in the destination's table (`pages.@count`, also
    /// written `count:(pages)`), in the form the fixture store `SampleModel2_V1.sqlite` shows:
    /// four on the destination's table (`…_PARAMETER_INSERT`, `…_UPDATE_INCREMENT`,
    /// `…_UPDATE_DECREMENT`, `…_DELETE`) that add or take one, one on the entity's own table
    /// (`…_SOURCE_INSERT`) that counts. Other derivations have no trigger here (their forms are
    /// not in a store Strata could check): the store writes their values at save instead.
    func derivedTriggers(_ model: ManagedObjectModel, _ byName: [String: EntityDescription]) -> [Trigger] {
        var triggers: [Trigger] = []
        let tableOf = Dictionary(entities.map { ($0.name, $0.table) }, uniquingKeysWith: { a, _ in a })
        func column(in table: String, _ role: Column.Role) -> String? {
            tables.first { $0.name == table }?.columns.first { $0.role == role }?.name
        }
        for entity in model.entities {
            for attribute in entity.attributes where !attribute.isTransient {
                guard let text = attribute.derivationExpression, let expression = try? ValueExpression(format: text),
                    let counted = expression.countedRelationship, let relationship = entity.relationshipsByName[counted],
                    relationship.isToMany, let inverseName = relationship.inverseName,
                    let inverse = byName[relationship.destinationEntityName]?.relationshipsByName[inverseName], !inverse.isToMany,
                    let source = tableOf[entity.name], let target = tableOf[relationship.destinationEntityName],
                    let value = column(in: source, .attribute(entity: entity.name, name: attribute.name)),
                    let key = column(in: target, .foreignKey(entity: Self.declaringEntity(of: inverseName, from: relationship.destinationEntityName, byName), relationship: inverseName))
                else { continue }
                let prefix = "Z_DA_\(target)_\(entity.name)_\(attribute.name)_PARAMETER_"
                func notify(_ row: String, function: String = "NSCoreDataDATriggerUpdatedAffectedObjectValue") -> String {
                    "SELECT \(function)('\(source)', Z_ENT, Z_PK, '\(attribute.name)', \(value)) FROM \(source) WHERE Z_PK = \(row);"
                }
                let owner = "\(entity.name).\(attribute.name)"
                /// One of the destination table's triggers: on `event`, the owner `row` names
                /// (`NEW.` or `OLD.` key) gets `change`.
                func parameter(_ kind: String, on event: String, _ row: String, _ change: String) -> Trigger {
                    let name = prefix + kind
                    return Trigger(
                        name: name,
                        sql: "CREATE TRIGGER \(name) AFTER \(event) ON \(target) FOR EACH ROW WHEN (\(row) NOT NULL) BEGIN UPDATE \(source) SET \(value) = \(change) WHERE Z_PK = \(row); \(notify(row)) END",
                        attribute: owner)
                }
                let count = "Z_DA_\(source)_\(entity.name)_\(attribute.name)_SOURCE_INSERT"
                triggers += [
                    parameter("INSERT", on: "INSERT", "NEW.\(key)", "IFNULL(\(value), 0) + 1"),
                    parameter("UPDATE_INCREMENT", on: "UPDATE OF \(key)", "NEW.\(key)", "\(value) + 1"),
                    parameter("UPDATE_DECREMENT", on: "UPDATE OF \(key)", "OLD.\(key)", "\(value) - 1"),
                    parameter("DELETE", on: "DELETE", "OLD.\(key)", "\(value) - 1"),
                    Trigger(
                        name: count,
                        sql: "CREATE TRIGGER \(count) AFTER INSERT ON \(source) FOR EACH ROW BEGIN UPDATE \(source) SET \(value) = (SELECT IFNULL(COUNT(\(key)), 0) FROM \(target) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; \(notify("NEW.Z_PK", function: "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue")) END",
                        attribute: owner),
                ]
            }
        }
        return triggers
    }
}

extension CoreDataSQLiteSchema {
    /// The derived attributes ("Entity.attribute") that triggers named `names` keep: Core Data
    /// names each `Z_DA_<table>_<Entity>_<attribute>_…`.
    package static func derivedAttributes(keptByTriggersNamed names: [String], in model: ManagedObjectModel) -> Set<String> {
        var kept: Set<String> = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.derivationExpression != nil {
                let marker = "_\(entity.name)_\(attribute.name)_"
                if names.contains(where: { $0.hasPrefix("Z_DA_") && $0.contains(marker) }) { kept.insert("\(entity.name).\(attribute.name)") }
            }
        }
        return kept
    }
}

extension ValueExpression {
    /// The relationship a derivation counts: `rel.@count` or `count:(rel)`.
    var countedRelationship: String? {
        switch self {
        case .collectionOperator(.key(.evaluatedObject, let name), "count", let path) where path.isEmpty: name
        case .function("count:", let arguments) where arguments.count == 1:
            if case .key(.evaluatedObject, let name) = arguments[0] { name } else { nil }
        default: nil
        }
    }
}
