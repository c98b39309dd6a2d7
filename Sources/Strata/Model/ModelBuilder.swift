/// Builds the entities of a ``ManagedObjectModel`` from a list of ``EntityDescription``s.
@resultBuilder
public enum ModelBuilder {
    public static func buildExpression(_ entity: EntityDescription) -> [EntityDescription] { [entity] }
    public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [EntityDescription]?) -> [EntityDescription] { part ?? [] }
    public static func buildEither(first: [EntityDescription]) -> [EntityDescription] { first }
    public static func buildEither(second: [EntityDescription]) -> [EntityDescription] { second }
    public static func buildArray(_ parts: [[EntityDescription]]) -> [EntityDescription] { parts.flatMap { $0 } }
}

/// Builds an entity from its attributes, relationships, uniqueness constraints and indexes.
@resultBuilder
public enum EntityBuilder {
    /// One line of an entity.
    public enum Component: Sendable {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
        case uniquenessConstraint([String])
        case index(FetchIndexDescription)
    }

    public static func buildExpression(_ attribute: AttributeDescription) -> [Component] { [.attribute(attribute)] }
    public static func buildExpression(_ relationship: RelationshipDescription) -> [Component] {
        [.relationship(relationship)]
    }
    public static func buildExpression(_ constraint: UniquenessConstraint) -> [Component] {
        [.uniquenessConstraint(constraint.propertyNames)]
    }
    public static func buildExpression(_ index: FetchIndexDescription) -> [Component] { [.index(index)] }
    public static func buildBlock(_ parts: [Component]...) -> [Component] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Component]?) -> [Component] { part ?? [] }
    public static func buildEither(first: [Component]) -> [Component] { first }
    public static func buildEither(second: [Component]) -> [Component] { second }
    public static func buildArray(_ parts: [[Component]]) -> [Component] { parts.flatMap { $0 } }
}

extension EntityDescription {
    /// An entity written with the model DSL:
    ///
    /// ```swift
    /// EntityDescription("Book", class: Book.self) {
    ///     AttributeDescription("title", .string)
    ///     AttributeDescription("pages", .integer32, defaultValue: 0)
    ///     RelationshipDescription("author", toOne: "Author", inverse: "books")
    ///     UniquenessConstraint("title")
    ///     FetchIndexDescription("byTitle", "title")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - managedObjectClass: The subclass of ``ManagedObject`` its objects are made of.
    ///   - superentity: The entity it inherits from, if any.
    ///   - isAbstract: Whether it only has objects through its subentities.
    ///   - components: Its attributes, relationships, uniqueness constraints and indexes.
    public init(
        _ name: String,
        class managedObjectClass: ManagedObject.Type = ManagedObject.self,
        superentity: String? = nil,
        isAbstract: Bool = false,
        @EntityBuilder _ components: () -> [EntityBuilder.Component] = { [] }
    ) {
        self.init(name: name, managedObjectClass: managedObjectClass, superentity: superentity, isAbstract: isAbstract)
        for component in components() {
            switch component {
            case .attribute(let attribute): attributes.append(attribute)
            case .relationship(let relationship): relationships.append(relationship)
            case .uniquenessConstraint(let names): uniquenessConstraints.append(names)
            case .index(let index): indexes.append(index)
            }
        }
    }
}

extension AttributeDescription {
    /// An attribute, for the model DSL; required unless `optional` is true. Persistent history
    /// keeps its value when an object is deleted if `preservesValueInHistoryOnDeletion` is true
    /// (Xcode's "Preserve After Deletion").
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = false, transient: Bool = false,
        defaultValue: AttributeValue? = nil, preservesValueInHistoryOnDeletion: Bool = false
    ) {
        self.init(name: name, type: type, isOptional: optional, isTransient: transient, defaultValue: defaultValue)
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
    }
}

extension RelationshipDescription {
    /// A to-one relationship, for the model DSL.
    public init(
        _ name: String, toOne destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        optional: Bool = true
    ) {
        self.init(name: name, destination: destination, inverse: inverse, deleteRule: deleteRule, isOptional: optional)
    }

    /// A to-many relationship, for the model DSL; ordered when `ordered` is true.
    public init(
        _ name: String, toMany destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        ordered: Bool = false, minCount: Int = 0, maxCount: Int = 0
    ) {
        self.init(
            name: name, destination: destination, inverse: inverse, isToMany: true, isOrdered: ordered,
            deleteRule: deleteRule, minCount: minCount, maxCount: maxCount)
    }
}

extension FetchIndexDescription {
    /// An index over one or more properties, ascending, for the model DSL.
    public init(_ name: String, _ propertyNames: String...) {
        self.init(name: name, elements: propertyNames.map { Element($0) })
    }
}

extension ManagedObjectModel {
    /// A model written with the DSL:
    ///
    /// ```swift
    /// let model = try ManagedObjectModel {
    ///     EntityDescription("Author", class: Author.self) {
    ///         AttributeDescription("name", .string)
    ///         RelationshipDescription("books", toMany: "Book", inverse: "author", deleteRule: .cascade)
    ///     }
    ///     EntityDescription("Book", class: Book.self) {
    ///         AttributeDescription("title", .string)
    ///         RelationshipDescription("author", toOne: "Author", inverse: "books")
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``ModelError`` when the model is not sound.
    public init(versionIdentifiers: Set<String> = [], @ModelBuilder _ entities: () -> [EntityDescription]) throws {
        try self.init(entities: entities(), versionIdentifiers: versionIdentifiers)
    }
}
