import Foundation

extension ValueExpression {
    /// The expression's value for a set of named values (`SELF`'s keys are the dictionary's):
    /// how a migration's mapping evaluates a value expression on a source object.
    ///
    /// - Throws: ``FetchPredicateError`` when the expression cannot be evaluated, or its value is
    ///   not an attribute value (a collection, say).
    public func evaluate(attributes: [String: AttributeValue]) throws -> AttributeValue? {
        let evaluator = PredicateEvaluator(source: NoObjects())
        let value = try evaluator.value(self, on: .dictionary(attributes.mapValues { EvaluationValue($0) }))
        return try value.attributeValue()
    }

    /// The expression's value for a managed object (inside its context, with its unsaved
    /// changes; an object of no context by its own values), as Core Data's
    /// `expressionValue(with:context:)`: numbers as `NSNumber`.
    public func evaluate(with object: ManagedObject) throws -> (any Sendable)? {
        object.willAccessValues()
        let evaluator = PredicateEvaluator(source: object.evaluationSource)
        return try evaluator.value(self, on: .object(ObjectRef(id: object.objectID, row: object.storage, layout: object.layout))).resultValue
    }
}

extension FetchPredicate {
    /// Whether a managed object matches the predicate: inside its context, with its unsaved
    /// changes; an object of no context, by its own values (its relationships lead nowhere).
    public func evaluate(with object: ManagedObject) throws -> Bool {
        object.willAccessValues()
        let evaluator = PredicateEvaluator(source: object.evaluationSource)
        return try evaluator.evaluate(self, on: .object(ObjectRef(id: object.objectID, row: object.storage, layout: object.layout)))
    }
}

extension ManagedObject {
    /// Where an evaluation on the object finds related objects: its context, or none.
    fileprivate var evaluationSource: any ObjectSource {
        graph.map { ContextObjectSource(graph: $0, includesPendingChanges: true) } ?? NoObjects()
    }
}

/// An object source with no objects: relationships lead nowhere.
private struct NoObjects: ObjectSource {
    func object(for id: ManagedObjectID) -> ObjectRef? { nil }
}

extension EvaluationValue {
    /// The value as an attribute value, for values that are one.
    func attributeValue() throws -> AttributeValue? {
        switch self {
        case .null: nil
        case .bool(let v): .boolean(v)
        case .integer(let v): .integer64(v)
        case .double(let v): .double(v)
        case .decimal(let v): .decimal(v)
        case .string(let v): .string(v)
        case .date(let v): .date(v)
        case .data(let v): .binaryData(v)
        case .uuid(let v): .uuid(v)
        case .uri(let v): .uri(v)
        case .objectID(let v): .objectID(v)
        case .object(let ref): .objectID(ref.id)
        case .collection, .dictionary:
            throw FetchPredicateError(.evaluation, "the expression gives a collection, not a single value")
        }
    }
}
