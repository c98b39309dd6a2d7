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

/// Builds an entity's properties, constraints and indexes from ``EntityComponent`` lines.
@resultBuilder
public enum EntityBuilder {
    public static func buildExpression(_ component: EntityComponent) -> [EntityComponent] { [component] }
    public static func buildBlock(_ parts: [EntityComponent]...) -> [EntityComponent] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [EntityComponent]?) -> [EntityComponent] { part ?? [] }
    public static func buildEither(first: [EntityComponent]) -> [EntityComponent] { first }
    public static func buildEither(second: [EntityComponent]) -> [EntityComponent] { second }
    public static func buildArray(_ parts: [[EntityComponent]]) -> [EntityComponent] { parts.flatMap { $0 } }
}

extension EntityDescription {
    /// An entity written with the model DSL.
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
        @EntityBuilder _ components: () -> [EntityComponent] = { [] }
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

extension ManagedObjectModel {
    /// A model written with the DSL:
    ///
    /// ```swift
    /// let model = try ManagedObjectModel {
    ///     EntityDescription("Author", class: Author.self) {
    ///         .attribute("name", .string)
    ///         .toMany("books", "Book", inverse: "author", deleteRule: .cascade)
    ///     }
    ///     EntityDescription("Book", class: Book.self) {
    ///         .attribute("title", .string)
    ///         .toOne("author", "Author", inverse: "books")
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``ModelError`` when the model is not sound.
    public init(versionIdentifiers: Set<String> = [], @ModelBuilder _ entities: () -> [EntityDescription]) throws {
        try self.init(entities: entities(), versionIdentifiers: versionIdentifiers)
    }
}
