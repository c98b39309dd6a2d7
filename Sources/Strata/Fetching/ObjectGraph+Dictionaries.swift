extension ObjectGraph {
    /// The functions that make an expression an aggregate over the objects a dictionary fetch
    /// matches (Core Data's `NSExpression(forFunction:arguments:)` names).
    static let aggregateFunctions: Set = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    /// Dictionary results: one per object, one per group, or — for aggregates without
    /// `propertiesToGroupBy` — one over every matching object, as Core Data gives them.
    ///
    /// They reflect the store as it is, whatever the request's `includesPendingChanges` says:
    /// Core Data's documentation of the dictionary result type says its results do not take
    /// pending insertions, updates or deletions into account.
    func dictionaries<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> [[String: any Sendable]] {
        var request = request
        request.includesPendingChanges = false
        let layout = try layout(for: request)
        let properties = request.propertiesToFetch
            ?? layout.attributes.filter { !$0.isTransient }.map { ExpressionDescription.key($0.name) }
        for property in properties {
            _ = try property.expression.check(on: layout, model: model, variables: [:])
            if case .key(.evaluatedObject, let key) = property.expression, layout.entity.relationshipsByName[key]?.isToMany == true {
                throw PersistenceError(
                    .unsupportedRequest,
                    "\(layout.name).\(key) is a to-many relationship, which a dictionary result cannot hold (Core Data refuses it too)")
            }
        }
        let aggregates = properties.filter { property in
            if case .function(let name, _) = property.expression { return Self.aggregateFunctions.contains(name) }
            return false
        }
        if request.propertiesToGroupBy == nil, !aggregates.isEmpty {
            guard aggregates.count == properties.count else {
                let others = properties.filter { property in !aggregates.contains { $0.name == property.name } }.map(\.name)
                throw PersistenceError(
                    .unsupportedRequest,
                    "a dictionary fetch with aggregates (\(aggregates.map(\.name).joined(separator: ", "))) gives one result over every "
                        + "object: \(others.joined(separator: ", ")) must then be in propertiesToGroupBy")
            }
            request.propertiesToGroupBy = []
        }
        try request.predicate?.check(on: layout, model: model)
        let keys = (request.propertiesToGroupBy ?? []).map(ValueExpression.keyPath)
        for key in keys { _ = try key.check(on: layout, model: model, variables: [:]) }
        let source = ContextObjectSource(graph: self, includesPendingChanges: request.includesPendingChanges)
        let evaluator = PredicateEvaluator(source: source)
        var rows: [[String: EvaluationValue]] = []
        // Grouped by the store itself, when it alone holds the answer and groups exactly as below.
        // (One entity's: the store groups one entity's rows.)
        if let groupBy = request.propertiesToGroupBy, !groupBy.isEmpty, request.fetchLimit == 0, request.fetchOffset == 0,
            !request.includesSubentities || layout.hierarchyNames.count == 1,
            let (_, snapshot) = soleSnapshot(
                for: request, names: request.includesSubentities ? layout.hierarchyNames : [layout.name], keyPaths: groupBy),
            case let sort = request.sortDescriptors.map({ (key: $0.key, ascending: $0.ascending) }),
            let groups = try snapshot.groups(of: layout, matching: request.predicate, groupBy: groupBy, properties: properties, sortedBy: sort)
        {
            rows = groups
        } else if let groupBy = request.propertiesToGroupBy {
            let matches = try self.matches(for: request, sorted: true)
            var groups: [(key: [EvaluationValue], members: [EvaluationValue])] = []
            for ref in matches {
                let value = try keys.map { try evaluator.value($0, on: .object(ref)) }
                if let index = groups.firstIndex(where: { zip($0.key, value).allSatisfy { PredicateEvaluator.equal($0, $1) } }) {
                    groups[index].members.append(.object(ref))
                } else {
                    groups.append((value, [.object(ref)]))
                }
            }
            // Aggregates over every object: one result, also over none (a count of 0).
            if groupBy.isEmpty, groups.isEmpty { groups.append(([], [])) }
            for group in groups {
                var row: [String: EvaluationValue] = [:]
                for (path, value) in zip(groupBy, group.key) { row[path] = value }
                for property in properties where row[property.name] == nil {
                    row[property.name] = try evaluator.value(property.expression, on: .collection(group.members))
                }
                rows.append(row)
            }
        } else {
            for ref in try self.matches(for: request, sorted: true) {
                var row: [String: EvaluationValue] = [:]
                for property in properties { row[property.name] = try evaluator.value(property.expression, on: .object(ref)) }
                rows.append(row)
            }
        }
        for property in properties {
            guard let type = property.expressionResultType else { continue }
            for index in rows.indices {
                if let value = rows[index][property.name] { rows[index][property.name] = value.converted(to: type) }
            }
        }
        if let having = request.havingPredicate {
            rows = try rows.filter { try evaluator.evaluate(having, on: .dictionary($0)) }
        }
        var results: [[String: any Sendable]] = []
        var seen: [[String: EvaluationValue]] = []
        for row in rows {
            if request.returnsDistinctResults {
                if seen.contains(where: { Self.sameRow($0, row) }) { continue }
                seen.append(row)
            }
            results.append(row.compactMapValues(\.resultValue))
        }
        return results
    }

    private static func sameRow(_ a: [String: EvaluationValue], _ b: [String: EvaluationValue]) -> Bool {
        a.count == b.count && a.allSatisfy { key, value in b[key].map { PredicateEvaluator.equal(value, $0) } ?? false }
    }
}
