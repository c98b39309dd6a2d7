import Foundation

/// Batch updates in SQL: one `UPDATE … WHERE` per entity, when the request translates exactly.
/// What does not (a predicate the store cannot compile exactly, a computed value other than
/// arithmetic on a `Double` attribute, a constrained or derived attribute) takes the general
/// path, on rows, which gives the same store.
extension SQLiteStore {
    /// One attribute assignment, as SQL: `column = ?` or `column = column <op> ?`.
    private struct Assignment {
        let column: String
        let sql: String
        let bindings: [SQLiteValue]
        /// The SQL that is true where the assignment changes the row (rows it would not change are
        /// not touched, as on the general path), and whether a NULL there must stop the native
        /// path (arithmetic on no value fails on the general path).
        let changes: String
        let changeBindings: [SQLiteValue]
        let failsOnNull: Bool
    }

    /// Updates what the request selects in SQL and records it in persistent history; returns the
    /// IDs of the objects changed, or `nil` when the request does not translate exactly (nothing
    /// was written then). On the coordinator's queue, as every write.
    func batchUpdate(
        _ request: BatchUpdateRequest, names: [String], author: String?, contextName: String?
    ) throws -> [ManagedObjectID]? {
        guard let writer else { return nil }
        var plans: [(entity: CoreDataSQLiteMapping.Entity, condition: SQLFetchCondition, assignments: [Assignment])] = []
        for name in names {
            guard let entity = mapping.entities[name] else { return nil }
            if entity.layout.entity.isAbstract { continue }
            guard let condition = exactCondition(request.predicate, for: entity) else { return nil }
            var assignments: [Assignment] = []
            for (key, value) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
                guard let assignment = try assignment(key, value, entity: entity) else { return nil }
                assignments.append(assignment)
            }
            plans.append((entity, condition, assignments))
        }
        return try sqlite {
            try writer.writeTransaction { () -> [ManagedObjectID]? in
                func scope(_ entity: CoreDataSQLiteMapping.Entity, _ condition: SQLFetchCondition) -> (String, [SQLiteValue]) {
                    ("t.Z_ENT = ? AND (\(condition.sql))", [SQLiteValue.integer(Int64(entity.number))] + condition.bindings)
                }
                // Every entity is checked before any is written: the general path then starts from
                // the store as it was.
                for (entity, condition, assignments) in plans {
                    let (scope, scopeBindings) = scope(entity, condition)
                    for assignment in assignments where assignment.failsOnNull {
                        let null = try writer.scalar(
                            "SELECT EXISTS (SELECT 1 FROM \(entity.table) t WHERE \(scope) AND t.\(assignment.column) IS NULL)", scopeBindings)
                        if null == .integer(1) { return nil }  // arithmetic on no value: the general path's to judge
                    }
                }
                var changed: [ManagedObjectID] = []
                for (entity, condition, assignments) in plans {
                    let (scope, scopeBindings) = scope(entity, condition)
                    let sets = (["Z_OPT = Z_OPT + 1"] + assignments.map(\.sql)).joined(separator: ", ")
                    let changes = assignments.map { "(\($0.changes))" }.joined(separator: " OR ")
                    let sql = "UPDATE \(entity.table) AS t SET \(sets) WHERE \(scope) AND (\(changes)) RETURNING Z_PK"
                    let bindings = assignments.flatMap(\.bindings) + scopeBindings + assignments.flatMap(\.changeBindings)
                    try writer.statement(sql).forEachRow(bindings) { row in
                        changed.append(objectID(entity: entity.layout.name, reference: row.int64(0)))
                    }
                }
                if tracksPersistentHistory, !changed.isEmpty {
                    var changes = ChangeSet()
                    changes.author = author
                    changes.contextName = contextName
                    var details = HistoryDetails()
                    let properties = Set(request.propertiesToUpdate.keys)
                    for id in changed {
                        changes.updated[id] = Row(emptyFor: mapping.entities[id.entityName]?.layout ?? plans[0].entity.layout)
                        details.updatedProperties[id] = properties
                    }
                    try recordHistory(of: changes, details: details, connection: writer)
                }
                return changed
            }
        }
    }

    /// The SQL of one assignment, or `nil` when it does not translate exactly.
    private func assignment(_ key: String, _ value: BatchUpdateRequest.Value, entity: CoreDataSQLiteMapping.Entity) throws -> Assignment? {
        guard let column = entity.attributes.first(where: { $0.attribute.name == key }),
            column.attribute.derivationExpression == nil,
            !entity.layout.uniquenessConstraints.contains(where: { $0.slots.contains(column.slot) })
        else { return nil }
        let attribute = column.attribute
        switch value {
        case .constant(let constant):
            let converted = try constant.flatMap { try BatchExecution.convert($0, to: attribute, entity: entity.layout.name, place: "a batch update") }
            let encoded = CoreDataSQLiteValues.encode(converted, for: attribute)
            return Assignment(
                column: column.column, sql: "\(column.column) = ?", bindings: [encoded], changes: "t.\(column.column) IS NOT ?",
                changeBindings: [encoded], failsOnNull: false)
        case .expression(let expression):
            // Arithmetic on a Double attribute and a number: SQL's REAL arithmetic is the evaluator's.
            guard attribute.type == .double, case .binary(let op, .key(.evaluatedObject, let name), .constant(let constant)) = expression,
                name == key, ["+", "-", "*"].contains(op)
            else { return nil }
            let number: Double
            switch constant {
            case .integer(let value): number = Double(value)
            case .double(let value) where value.isFinite: number = value
            default: return nil
            }
            return Assignment(
                column: column.column, sql: "\(column.column) = \(column.column) \(op) ?", bindings: [.real(number)],
                changes: "t.\(column.column) \(op) ? IS NOT t.\(column.column)",
                changeBindings: [.real(number)], failsOnNull: true)
        }
    }
}
