import Foundation

/// Dictionary fetches grouped in SQL: `GROUP BY` key paths of the entity, with the aggregates
/// whose SQL result is exactly what the predicate evaluator computes.
extension SQLiteStore {
    /// The groups of the rows that match `predicate` exactly, one dictionary per group in the
    /// fetching context's order (by the sort keys, which must be group keys, then by each
    /// group's first object); `nil` when anything of the request has no exact SQL form, and the
    /// context groups instead. A having-predicate is the context's to apply, on what this returns.
    ///
    /// What translates: group keys that are attributes or to-one relationships, of the entity
    /// or reached through to-one relationships (joined); properties that are one of those keys,
    /// or `count:`, `min:`, `max:`, `sum:`, `average:` of one attribute key path — `min:`/`max:`
    /// of types whose SQL order is the evaluator's, `sum:`/`average:` of numbers through
    /// `strata_sum`/`strata_avg`, which add as the evaluator adds (``NumericSum``).
    func readGroups(
        of layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [[String: EvaluationValue]]? {
        guard let snapshot = snapshot as? SQLiteReadSnapshot, let entity = mapping.entities[layout.name], !groupBy.isEmpty,
            sort.allSatisfy({ groupBy.contains($0.key) }), let condition = exactCondition(predicate, for: entity)
        else { return nil }
        enum Output {
            /// Decoded as this attribute.
            case attribute(CoreDataSQLiteMapping.Entity, position: Int)
            /// An object ID from this column and the next (its `Z_ENT`).
            case object
            /// A number as SQL gives it.
            case number
        }
        var columns = SQLiteJoinedColumns(mapping: mapping, root: entity)
        var selected: [String] = []
        var outputs: [(name: String, output: Output)] = []
        func select(_ target: SQLiteJoinedColumns.Target, column: String, as name: String) {
            switch target {
            case .attribute(let entity, let position):
                selected.append(column)
                outputs.append((name, .attribute(entity, position: position)))
            case .toOne(let key, let entityColumn):
                selected += [key, entityColumn]
                outputs.append((name, .object))
            }
        }
        var keyColumns: [String: (sql: String, target: SQLiteJoinedColumns.Target)] = [:]
        for key in groupBy {
            guard let column = columns.column(for: key) else { return nil }
            keyColumns[key] = column
            select(column.target, column: column.sql, as: key)
        }
        for property in properties {
            if let key = Self.keyPath(property.expression), let column = keyColumns[key] {
                if property.name != key { select(column.target, column: column.sql, as: property.name) }
                continue
            }
            guard case .function(let function, let arguments) = property.expression, arguments.count == 1,
                let key = Self.keyPath(arguments[0]), let (column, target) = columns.column(for: key),
                case .attribute(let owner, let position) = target
            else { return nil }
            let type = owner.attributeTypes[position]
            switch function {
            case "count:":
                // The evaluator counts a key path's value of every member, nil or not.
                selected.append("count(*)")
                outputs.append((property.name, .number))
            case "min:", "max:":
                guard SQLiteJoinedColumns.sortable.contains(type) else { return nil }
                selected.append("\(function.dropLast())(\(column))")
                outputs.append((property.name, .attribute(owner, position: position)))
            case "sum:", "average:":
                guard SQLiteJoinedColumns.summable.contains(type) else { return nil }
                selected.append("\(function == "sum:" ? "strata_sum" : "strata_avg")(\(column), '\(type.rawValue)')")
                outputs.append((property.name, .number))
            default:
                return nil
            }
        }
        guard let ordering = columns.ordering(sort) else { return nil }
        let groupColumns = groupBy.compactMap { keyColumns[$0]?.sql }
        let sql = "SELECT \(selected.joined(separator: ", ")) FROM \(entity.table) t \(columns.joins.joined(separator: " ")) "
            + "WHERE t.Z_ENT = ? AND (\(condition.sql)) GROUP BY \(groupColumns.joined(separator: ", ")) "
            + "ORDER BY \((ordering + ["min(t.Z_PK)"]).joined(separator: ", "))"
        let spaces = idSpaces
        return try sqlite {
            try snapshot.read { connection in
                var groups: [[String: EvaluationValue]] = []
                try connection.statement(sql).forEachRow([.integer(Int64(entity.number))] + condition.bindings) { statement in
                    var group: [String: EvaluationValue] = [:]
                    var index: Int32 = 0
                    for (name, output) in outputs {
                        let stored = statement.value(index)
                        index += 1
                        switch (output, stored) {
                        case (.attribute(let owner, let position), _):
                            do {
                                group[name] = EvaluationValue(try CoreDataSQLiteValues.decode(
                                    stored, type: owner.attributeTypes[position], allowsExternalStorage: owner.attributeStoresExternally[position],
                                    externalData: externalData))
                            } catch let failure as CoreDataSQLiteValues.Failure {
                                throw StoreError(.corruptFile, file: fileURL, "\(entity.layout.name).\(name): \(failure.description)")
                            }
                        case (.object, .integer(let reference)):
                            let number = Int(statement.int64(index))
                            index += 1
                            group[name] = spaces[number].map { .objectID(ManagedObjectID(space: $0, number: reference)) } ?? .null
                        case (.object, _):
                            index += 1
                            group[name] = .null
                        case (.number, .integer(let number)): group[name] = .integer(number)
                        case (.number, .real(let number)): group[name] = .double(number)
                        case (.number, _): group[name] = .null
                        }
                    }
                    groups.append(group)
                }
                return groups
            }
        }
    }

    /// `a.b.c` from the object, whether parsed as one key or as keys of keys.
    private static func keyPath(_ expression: ValueExpression) -> String? {
        switch expression {
        case .key(.evaluatedObject, let key): key
        case .key(let base, let key): keyPath(base).map { "\($0).\(key)" }
        default: nil
        }
    }
}
