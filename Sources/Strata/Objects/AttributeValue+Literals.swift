// Literals make default values and bounds read naturally: `defaultValue: 0`, `"untitled"`.
// The model converts a literal to its attribute's type (an integer literal to Integer 16,
// say) and refuses one that does not convert.

extension AttributeValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer64(value) }
}

extension AttributeValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension AttributeValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension AttributeValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
