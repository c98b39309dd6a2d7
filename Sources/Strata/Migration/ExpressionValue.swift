/// Evaluates a mapping's value expression for a source object, as Core Data's migration
/// manager does: `$source` is the object (its attributes, and its relationships' object IDs),
/// and so is `SELF`, so that `$source.firstName + " " + $source.lastName` and the shorter
/// `firstName + " " + lastName` of Strata's JSON mappings mean the same;
/// `FUNCTION($entityPolicy, "selector", …)` asks the mapping's policy
/// (``EntityMigrationPolicy/evaluateFunction(_:arguments:source:in:)``).
enum ExpressionValue {
    static func evaluate(
        _ expression: ValueExpression, on object: MigrationObject, mapping: EntityMapping, in session: MigrationSession
    ) throws -> AttributeValue? {
        var values = object.attributeValues.mapValues { EvaluationValue($0) }
        for (name, targets) in object.relatedObjectIDs { values[name] = .collection(targets.map(EvaluationValue.objectID)) }
        let source = EvaluationValue.dictionary(values)
        var evaluator = PredicateEvaluator(source: NoMigrationObjects(), variables: ["source": source])
        evaluator.customFunction = { target, selector, arguments, evaluate in
            guard target == "entityPolicy" else { return nil }
            guard let policy = mapping.policy else {
                throw MigrationError(
                    .invalidMapping, "\(mapping.name): FUNCTION($entityPolicy, \"\(selector)\", …) needs a policy, and the mapping has none")
            }
            let given = try arguments.map { argument -> MappingFunctionArgument in
                if case .variable("source") = argument { return .object(object) }
                let value = try evaluate(argument)
                if case .collection(let items) = value {
                    return .objects(items.compactMap { if case .objectID(let id) = $0 { id } else { nil } })
                }
                return .value(try value.attributeValue())
            }
            return EvaluationValue(try policy.evaluateFunction(selector, arguments: given, source: object, in: session))
        }
        return try evaluator.value(expression, on: source).attributeValue()
    }
}

/// During a migration, relationships lead to object IDs only: the objects themselves are
/// elsewhere in the stream.
private struct NoMigrationObjects: ObjectSource {
    func object(for id: ManagedObjectID) -> ObjectRef? { nil }
}
