/// One line of an entity in the model DSL: an attribute, a relationship, a uniqueness
/// constraint or a fetch index.
///
/// ```swift
/// EntityDescription("Book", class: Book.self) {
///     .attribute("title", .string)
///     .attribute("pages", .integer32, defaultValue: 0)
///     .toOne("author", "Author", inverse: "books")
///     .unique("isbn")
/// }
/// ```
public enum EntityComponent: Sendable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)
    case uniquenessConstraint([String])
    case index(FetchIndexDescription)

    /// An attribute; required unless `optional` is true.
    public static func attribute(
        _ name: String, _ type: AttributeType, optional: Bool = false, transient: Bool = false,
        defaultValue: AttributeValue? = nil
    ) -> Self {
        .attribute(
            AttributeDescription(
                name: name, type: type, isOptional: optional, isTransient: transient, defaultValue: defaultValue))
    }

    /// A to-one relationship to `destination`.
    public static func toOne(
        _ name: String, _ destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        optional: Bool = true
    ) -> Self {
        .relationship(
            RelationshipDescription(
                name: name, destination: destination, inverse: inverse, deleteRule: deleteRule, isOptional: optional))
    }

    /// A to-many relationship to `destination`, ordered when `ordered` is true.
    public static func toMany(
        _ name: String, _ destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        ordered: Bool = false, minCount: Int = 0, maxCount: Int = 0
    ) -> Self {
        .relationship(
            RelationshipDescription(
                name: name, destination: destination, inverse: inverse, isToMany: true, isOrdered: ordered,
                deleteRule: deleteRule, minCount: minCount, maxCount: maxCount))
    }

    /// A uniqueness constraint over one or more properties.
    public static func unique(_ propertyNames: String...) -> Self {
        .uniquenessConstraint(propertyNames)
    }

    /// A fetch index over one or more properties, ascending.
    public static func index(_ name: String, _ propertyNames: String...) -> Self {
        .index(FetchIndexDescription(name: name, elements: propertyNames.map { .init($0) }))
    }
}
