import Foundation

/// A dictionary fetch grouped in SQL, once for both relational stores: `GROUP BY` key paths of
/// the entity, with the aggregates whose SQL result is exactly what the predicate evaluator
/// computes. Made only when all of the request has such a form (``init(entity:mapping:store:dialect:predicate:groupBy:properties:sort:)``
/// is `nil` otherwise, and the context groups); a having-predicate is the context's to apply,
/// on what this returns.
///
/// What translates: group keys that are attributes or to-one relationships, of the entity or
/// reached through to-one relationships (joined); properties that are one of those keys, or
/// `count:`, `min:`, `max:`, `sum:`, `average:` of one attribute key path — `min:`/`max:` of
/// types whose SQL order is the evaluator's, `sum:`/`average:` of numbers where the database
/// adds as the evaluator adds (SQLite's `strata_sum`/`strata_avg`, ``NumericSum``; PostgreSQL
/// leaves them to the context). Groups come in the fetching context's order: by the sort keys,
/// which must be group keys, then by each group's first object.
package struct RelationalGrouping {
    private enum Output {
        /// Decoded as this attribute.
        case attribute(CoreDataTableMapping.Entity, position: Int)
        /// An object ID from this column and the next (its `Z_ENT`).
        case object
        /// A number as SQL gives it.
        case number
    }

    /// The statement, in the dialect it was made for, and its values.
    package let sql: String
    package let bindings: [SQLValue]
    private let outputs: [(name: String, output: Output)]

    package init?(
        entity: CoreDataTableMapping.Entity, mapping: CoreDataTableMapping, store: String, dialect: SQLDialect, predicate: FetchPredicate?,
        groupBy: [String], properties: [ExpressionDescription], sort: [(key: String, ascending: Bool)]
    ) {
        guard !groupBy.isEmpty, sort.allSatisfy({ groupBy.contains($0.key) }) else { return nil }
        guard let condition = SQLFetchCondition.exact(predicate, for: entity, in: mapping, store: store, dialect: dialect) else { return nil }
        var columns = RelationalJoinedColumns(mapping: mapping, root: entity, dialect: dialect)
        var selected: [String] = []
        var outputs: [(name: String, output: Output)] = []
        func select(_ target: RelationalJoinedColumns.Target, column: String, as name: String) {
            switch target {
            case .attribute(let entity, let position):
                selected.append(column)
                outputs.append((name, .attribute(entity, position: position)))
            case .toOne(let key, let entityColumn):
                selected += [key, entityColumn]
                outputs.append((name, .object))
            }
        }
        var keyColumns: [String: (sql: String, target: RelationalJoinedColumns.Target)] = [:]
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
                // Text compares by code point in both; PostgreSQL's collation says so.
                guard RelationalJoinedColumns.sortable.contains(type), type != .uuid || dialect.aggregatesBytes else { return nil }
                selected.append("\(function.dropLast())(\(type == .string ? column + dialect.textOrdering : column))")
                outputs.append((property.name, .attribute(owner, position: position)))
            case "sum:", "average:":
                guard dialect.hasEvaluatorFunctions, RelationalJoinedColumns.summable.contains(type) else { return nil }
                selected.append("\(function == "sum:" ? "strata_sum" : "strata_avg")(\(column), '\(type.rawValue)')")
                outputs.append((property.name, .number))
            default:
                return nil
            }
        }
        guard let ordering = columns.ordering(sort) else { return nil }
        let groupColumns = groupBy.compactMap { keyColumns[$0]?.sql }
        let (pk, ent) = (dialect.column("Z_PK", of: "t"), dialect.column("Z_ENT", of: "t"))
        let statement: SQLFragment =
            "SELECT \(selected.joined(separator: ", ")) FROM \(dialect.table(entity.table)) t \(columns.joins.joined(separator: " ")) "
            + "WHERE \(ent) = \(bound: .integer(Int64(entity.number))) AND (\(condition.fragment)) GROUP BY \(groupColumns.joined(separator: ", ")) "
            + "ORDER BY \((ordering + ["min(\(pk))"]).joined(separator: ", "))"
        sql = statement.sql(in: dialect)
        bindings = statement.bindings
        self.outputs = outputs
    }

    /// One group from a row of ``sql``: object IDs in `spaces` (by entity number), externally
    /// stored values through `externalData`; a value that does not decode is thrown as `damaged`
    /// makes it (given the property's name and what is wrong).
    package func group(
        from row: [SQLValue], spaces: [Int: ObjectIDSpace], externalData: (String) throws -> AttributeValue,
        damaged: (String, String) -> any Error
    ) throws -> StoreGroup {
        var group: [String: EvaluationValue] = [:]
        var index = 0
        for (name, output) in outputs {
            let stored = index < row.count ? row[index] : .null
            index += 1
            switch (output, stored) {
            case (.attribute(let owner, let position), _):
                do {
                    group[name] = EvaluationValue(
                        try CoreDataColumnValues.decode(
                            stored, type: owner.attributeTypes[position], allowsExternalStorage: owner.attributeStoresExternally[position],
                            externalData: externalData))
                } catch let failure as CoreDataColumnValues.Failure {
                    throw damaged(name, failure.description)
                }
            case (.object, .integer(let reference)):
                let number = index < row.count ? row[index].integerValue.map(Int.init) : nil
                index += 1
                group[name] = number.flatMap { spaces[$0] }.map { .objectID(ManagedObjectID(space: $0, number: reference)) } ?? .null
            case (.object, _):
                index += 1
                group[name] = .null
            case (.number, .integer(let number)): group[name] = .integer(number)
            case (.number, .real(let number)): group[name] = .double(number)
            case (.number, _): group[name] = .null
            }
        }
        return StoreGroup(values: group)
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
