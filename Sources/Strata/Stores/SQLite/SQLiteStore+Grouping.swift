import Foundation

/// Dictionary fetches grouped in SQL: `GROUP BY` the entity's own attributes, with the
/// aggregates whose SQL result is exactly what the predicate evaluator computes.
extension SQLiteStore {
    /// The groups of the rows that match `predicate` exactly, one dictionary per group in the
    /// fetching context's order (by the sort keys, which must be group keys, then by each
    /// group's first object); `nil` when anything of the request has no exact SQL form, and the
    /// context groups instead.
    ///
    /// What translates: group keys that are attributes of the entity; properties that are one of
    /// those keys, or `count:`, `min:`, `max:`, `sum:`, `average:` of one attribute — `min:`/`max:`
    /// of types whose SQL order is the evaluator's, `sum:`/`average:` of integers and Booleans
    /// (doubles would be added in another order, decimals as doubles). `sum:` gives an integer
    /// when every value is an integer and none is nil, else a double, as the evaluator does.
    func readGroups(
        of layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [[String: EvaluationValue]]? {
        guard let snapshot = snapshot as? SQLiteReadSnapshot, let entity = mapping.entities[layout.name], !groupBy.isEmpty,
            sort.allSatisfy({ groupBy.contains($0.key) }), let condition = exactCondition(predicate, for: entity)
        else { return nil }
        func position(of key: String) -> Int? { entity.attributes.firstIndex { $0.attribute.name == key } }
        var keys: [(name: String, position: Int)] = []
        for key in groupBy {
            guard let position = position(of: key) else { return nil }
            keys.append((key, position))
        }
        enum Output {
            case attribute(Int)  // decoded as the attribute at this position
            case integer
            case number
        }
        var selected = keys.map { "t.\(entity.attributes[$0.position].column)" }
        var outputs: [(name: String, output: Output)] = keys.map { ($0.name, .attribute($0.position)) }
        let sortable: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float, .boolean, .date, .string, .uuid]
        let integers: Set<AttributeType> = [.integer16, .integer32, .integer64]
        // Sums and averages of integers (and Booleans) only: SQL adds doubles in another order
        // than the context, and would differ in the last bits.
        let numbers = integers.union([.boolean])
        for property in properties {
            if case .key(.evaluatedObject, let key) = property.expression, groupBy.contains(key) {
                if property.name != key, let index = keys.firstIndex(where: { $0.name == key }) {
                    selected.append(selected[index])
                    outputs.append((property.name, .attribute(keys[index].position)))
                }
                continue
            }
            guard case .function(let function, let arguments) = property.expression, arguments.count == 1,
                case .key(.evaluatedObject, let key) = arguments[0], let position = position(of: key)
            else { return nil }
            let column = "t.\(entity.attributes[position].column)", type = entity.attributeTypes[position]
            switch function {
            case "count:":
                selected.append("count(*)")
                outputs.append((property.name, .integer))
            case "min:", "max:":
                guard sortable.contains(type) else { return nil }
                selected.append("\(function.dropLast())(\(column))")
                outputs.append((property.name, .attribute(position)))
            case "sum:" where numbers.contains(type):
                // The evaluator's sum is an integer when every value is one (a nil or a Boolean is not).
                selected.append(integers.contains(type) ? "CASE WHEN count(\(column)) = count(*) THEN sum(\(column)) ELSE total(\(column)) END" : "total(\(column))")
                outputs.append((property.name, .number))
            case "average:" where numbers.contains(type):
                selected.append("avg(\(column))")
                outputs.append((property.name, .number))
            default:
                return nil
            }
        }
        let ordering = sort.compactMap { key, ascending in
            keys.first { $0.name == key }.map { "t.\(entity.attributes[$0.position].column) \(ascending ? "ASC" : "DESC")" }
        } + ["min(t.Z_PK)"]
        let sql = "SELECT \(selected.joined(separator: ", ")) FROM \(entity.table) t WHERE t.Z_ENT = ? AND (\(condition.sql)) "
            + "GROUP BY \(keys.map { "t.\(entity.attributes[$0.position].column)" }.joined(separator: ", ")) ORDER BY \(ordering.joined(separator: ", "))"
        return try sqlite {
            try snapshot.read { connection in
                var groups: [[String: EvaluationValue]] = []
                try connection.statement(sql).forEachRow([.integer(Int64(entity.number))] + condition.bindings) { statement in
                    var group: [String: EvaluationValue] = [:]
                    for (index, (name, output)) in outputs.enumerated() {
                        let stored = statement.value(Int32(index))
                        switch (output, stored) {
                        case (.attribute(let position), _):
                            do {
                                group[name] = EvaluationValue(try CoreDataSQLiteValues.decode(
                                    stored, type: entity.attributeTypes[position], allowsExternalStorage: entity.attributeStoresExternally[position],
                                    externalData: externalData))
                            } catch let failure as CoreDataSQLiteValues.Failure {
                                throw StoreError(.corruptFile, file: fileURL, "\(entity.layout.name).\(name): \(failure.description)")
                            }
                        case (_, .integer(let number)): group[name] = .integer(number)
                        case (_, .real(let number)): group[name] = .double(number)
                        default: group[name] = .null
                        }
                    }
                    groups.append(group)
                }
                return groups
            }
        }
    }
}
