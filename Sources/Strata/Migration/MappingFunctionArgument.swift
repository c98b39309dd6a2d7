/// An argument of `FUNCTION($entityPolicy, "selector:", arguments…)` in a mapping's value
/// expression, as the policy's ``EntityMigrationPolicy/evaluateFunction(_:arguments:source:in:)``
/// receives it.
public enum MappingFunctionArgument: Sendable {
    /// A value: a constant, or an attribute of the source object (`$source.name`); `nil` for none.
    case value(AttributeValue?)
    /// The source object itself (`$source`).
    case object(MigrationObject)
    /// Objects a relationship of the source object holds (`$source.cars`).
    case objects([ManagedObjectID])

    /// The argument's value, when it is one.
    public var value: AttributeValue? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// The argument as a string, when it is one.
    public var string: String? {
        if case .value(.string(let text)?) = self { return text }
        return nil
    }
}
