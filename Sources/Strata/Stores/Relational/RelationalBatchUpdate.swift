import Foundation

/// A batch update in SQL, once for both relational stores: one `UPDATE … WHERE` per entity,
/// when the request translates exactly. What does not (a predicate the store cannot compile
/// exactly, a computed value other than arithmetic on a `Double` attribute, a constrained or
/// derived attribute) is `nil` here and takes the general path, on rows, which gives the same
/// store. The store runs it in its write transaction and records its history.
package struct RelationalBatchUpdate {
    /// One attribute assignment, as SQL: `column = ?` or `column = column <op> ?`.
    private struct Assignment {
        let column: String
        /// `column = …`.
        let set: SQLFragment
        /// The SQL that is true where the assignment changes the row (rows it would not change
        /// are not touched, as on the general path), and whether a NULL there must stop the
        /// native path (arithmetic on no value fails on the general path).
        let changes: SQLFragment
        let failsOnNull: Bool
    }

    private let plans: [(entity: CoreDataTableMapping.Entity, condition: SQLFetchCondition, assignments: [Assignment])]
    private let mapping: CoreDataTableMapping
    private let store: String
    private let dialect: SQLDialect
    /// The attributes the request sets: what history records of each object it changes.
    package let properties: Set<String>

    /// The update of `names`' objects (each entity on its own), or `nil` when any part of the
    /// request has no exact SQL form.
    ///
    /// - Throws: ``ValidationError`` when a constant does not convert to its attribute's type,
    ///   as on the general path.
    package init?(_ request: BatchUpdateRequest, names: [String], mapping: CoreDataTableMapping, store: String, dialect: SQLDialect) throws {
        var plans: [(entity: CoreDataTableMapping.Entity, condition: SQLFetchCondition, assignments: [Assignment])] = []
        for name in names {
            guard let entity = mapping.entities[name] else { return nil }
            if entity.layout.entity.isAbstract { continue }
            guard let condition = SQLFetchCondition.exact(request.predicate, for: entity, in: mapping, store: store, dialect: dialect) else { return nil }
            var assignments: [Assignment] = []
            for (key, value) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
                guard let assignment = try Self.assignment(key, value, entity: entity, dialect: dialect) else { return nil }
                assignments.append(assignment)
            }
            plans.append((entity, condition, assignments))
        }
        self.plans = plans
        self.mapping = mapping
        self.store = store
        self.dialect = dialect
        properties = Set(request.propertiesToUpdate.keys)
    }

    /// Runs the update in the connection's open transaction; returns the IDs of the objects it
    /// changed, or `nil` when an arithmetic assignment meets no value (nothing was written: the
    /// general path judges it).
    package func run(on connection: some RelationalConnection) throws -> [ManagedObjectID]? {
        func scope(_ entity: CoreDataTableMapping.Entity, _ condition: SQLFetchCondition) -> SQLFragment {
            "\(dialect.column("Z_ENT", of: "t")) = \(bound: .integer(Int64(entity.number))) AND (\(condition.fragment))"
        }
        // Every entity is checked before any is written: the general path then starts from the
        // store as it was.
        for (entity, condition, assignments) in plans {
            let scope = scope(entity, condition)
            for assignment in assignments where assignment.failsOnNull {
                var null = false
                let check: SQLFragment =
                    "SELECT EXISTS (SELECT 1 FROM \(dialect.table(entity.table)) t WHERE \(scope) AND \(dialect.column(assignment.column, of: "t")) IS NULL)"
                try connection.forEachRow(check.sql(in: dialect), check.bindings) { null = $0.first?.integerValue == 1 }
                if null { return nil }
            }
        }
        var changed: [ManagedObjectID] = []
        for (entity, condition, assignments) in plans {
            let version = dialect.column("Z_OPT")
            let sets = SQLFragment.joined(["\(version) = \(version) + 1"] + assignments.map(\.set), separator: ", ")
            let changes = SQLFragment.joined(assignments.map { "(\($0.changes))" }, separator: " OR ")
            let update: SQLFragment =
                "UPDATE \(dialect.table(entity.table)) AS t SET \(sets) WHERE \(scope(entity, condition)) AND (\(changes)) RETURNING \(dialect.column("Z_PK"))"
            let space = ObjectIDSpace.make(store: store, entityName: entity.layout.name)
            try connection.forEachRow(update.sql(in: dialect), update.bindings) { row in
                if let key = row.first?.integerValue { changed.append(ManagedObjectID(space: space, number: key)) }
            }
        }
        return changed
    }

    /// The SQL of one assignment, or `nil` when it does not translate exactly.
    private static func assignment(
        _ key: String, _ value: BatchUpdateRequest.Value, entity: CoreDataTableMapping.Entity, dialect: SQLDialect
    ) throws -> Assignment? {
        guard let column = entity.attributes.first(where: { $0.attribute.name == key }),
            column.attribute.derivationExpression == nil,
            !entity.layout.uniquenessConstraints.contains(where: { $0.slots.contains(column.slot) })
        else { return nil }
        let attribute = column.attribute
        let (set, current) = (dialect.column(column.column), dialect.column(column.column, of: "t"))
        switch value {
        case .constant(let constant):
            let converted = try constant.flatMap { try BatchExecution.convert($0, to: attribute, entity: entity.layout.name, place: "a batch update") }
            let encoded = CoreDataColumnValues.encode(converted, for: attribute)
            return Assignment(
                column: column.column, set: "\(set) = \(bound: encoded)", changes: "\(current)\(dialect.isDistinctFrom)\(bound: encoded)", failsOnNull: false)
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
                column: column.column, set: "\(set) = \(current) \(op) \(bound: .real(number))",
                changes: "\(current) \(op) \(bound: .real(number))\(dialect.isDistinctFrom)\(current)", failsOnNull: true)
        }
    }
}
