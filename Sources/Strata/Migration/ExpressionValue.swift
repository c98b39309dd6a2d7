
/// Evaluates a mapping's value expression on a source object's own attributes.
enum ExpressionValue {
    static func evaluate(_ expression: ValueExpression, on object: MigrationObject, model: ManagedObjectModel) throws -> AttributeValue? {
        try expression.evaluate(attributes: object.attributeValues)
    }
}
