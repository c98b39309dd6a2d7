/// Core Data's ways to reach an entity from a class or a context, and to insert an object of
/// a given entity: `Book.entity()`, `NSEntityDescription.entity(forEntityName:in:)`,
/// `NSEntityDescription.insertNewObject(forEntityName:into:)`, `Book(entity:insertInto:)`.
extension ManagedObject {
    /// The entity whose class this is, in the model made last with it, as Core Data's
    /// `entity()` finds it among the models loaded.
    ///
    /// A class no model has made, or one that several entities of that model share, has no
    /// one answer: that is a programmer error (Core Data's answer is undefined then) and stops
    /// the program with the reason; ``ManagedObjectModel/entitiesByName`` answers either.
    public class func entity() -> EntityDescription {
        switch ClassEntities.entities(of: self) {
        case let entities where entities.count == 1: return entities[0]
        case let entities where entities.isEmpty:
            preconditionFailure("no model has an entity whose class is \(self): give the entity its class (EntityDescription/managedObjectClass)")
        case let entities:
            preconditionFailure("the entities \(entities.map(\.name)) share the class \(self): use the model's entitiesByName")
        }
    }

    /// Makes a new object of `entity` and inserts it into `context`, as Core Data's
    /// `init(entity:insertInto:)`; with a `nil` context, an object of no context yet, which
    /// ``ManagedObjectContext/insert(_:)`` inserts later (a draft the user may throw away).
    ///
    /// ``awakeFromInsert()`` runs here, once, with or without a context. An object without a
    /// context holds attribute values (defaults first) and can be read, validated and changed;
    /// it may relate to other objects of no context, as Core Data's may, and holds them;
    /// inserting it inserts them too and sets the inverse relationships. It may not relate to an
    /// object of a context (`setValue(_:forKey:)` throws, a ``Relationship`` setter stops the
    /// program, as for objects of two contexts). Its ``managedObjectContext`` is `nil`.
    ///
    /// - Throws: ``PersistenceError`` `.unknownEntity` for an entity the context's model does not
    ///   have (or, without a context, an entity not taken from a model: ask the model for it), or
    ///   an abstract one; ``ValidationError`` `.wrongType` when the entity's class is not this
    ///   class (a plain ``ManagedObject`` serves any entity).
    public convenience init(entity: EntityDescription, insertInto context: isolated ManagedObjectContext?) throws {
        let layout: EntityLayout
        if let context {
            guard let found = context.assumeIsolated({ $0.graph.model.layout(for: entity.name) }) else {
                throw PersistenceError(.unknownEntity, "the context's model has no entity named '\(entity.name)'")
            }
            layout = found
        } else {
            guard let found = entity.modelLink.link?.layout(named: entity.name) else {
                throw PersistenceError(
                    .unknownEntity, "the entity '\(entity.name)' belongs to no model yet: take it from the model (entitiesByName)")
            }
            layout = found
        }
        guard !layout.entity.isAbstract else {
            throw PersistenceError(.unknownEntity, "the entity '\(entity.name)' is abstract: insert one of its subentities")
        }
        guard Self.self == ManagedObject.self || layout.entity.managedObjectClass == Self.self else {
            throw ValidationError(
                .wrongType, entity: entity.name, key: "", "the entity's objects are \(layout.entity.managedObjectClass), not \(Self.self)")
        }
        self.init(ManagedObjectCreation(layout: layout, objectID: .temporary(in: layout.temporaryIDSpace), graph: nil, stored: nil))
        if let context {
            // The initialiser runs isolated to `context` (its isolated parameter), so the object
            // never leaves the context's isolation; `assumeIsolated` only regains what unwrapping
            // the optional loses, and the region checker cannot see that the closure runs here
            // and now, on the same isolation, before the initialiser returns.
            nonisolated(unsafe) let object = self
            context.assumeIsolated { context in
                context.graph.insert(object)
                object.awakeFromInsert()
            }
        } else {
            awakeFromInsert()
        }
    }
}

extension EntityDescription {
    /// The entity named `name` in the model of `context`'s coordinator: Core Data's
    /// `entity(forEntityName:in:)`. `nil` for a name the model does not have, or a context
    /// with no coordinator yet.
    public static func entity(forEntityName name: String, in context: ManagedObjectContext) -> EntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name]
    }

    /// Inserts a new object of the entity named `name`: Core Data's
    /// `insertNewObject(forEntityName:into:)`, the same as
    /// ``ManagedObjectContext/insertNewObject(forEntityName:)``.
    ///
    /// - Throws: ``PersistenceError`` `.unknownEntity` for an entity the model does not have, or
    ///   an abstract one.
    @discardableResult
    public static func insertNewObject(forEntityName name: String, into context: isolated ManagedObjectContext) throws -> ManagedObject {
        try context.insertNewObject(forEntityName: name)
    }
}

/// The entities each ``ManagedObject`` subclass was last given, by the model made last with it:
/// what ``ManagedObject/entity()`` answers from.
enum ClassEntities {
    private static let byClass = ThreadLocked<[ObjectIdentifier: [EntityDescription]]>([:])

    /// Records a model's entities as their classes' (each class's previous ones forgotten).
    static func record(_ entities: [EntityDescription]) {
        let custom = Dictionary(grouping: entities.filter { $0.managedObjectClass != ManagedObject.self }) {
            ObjectIdentifier($0.managedObjectClass)
        }
        guard !custom.isEmpty else { return }
        byClass.withLock { $0.merge(custom) { _, new in new } }
    }

    static func entities(of type: ManagedObject.Type) -> [EntityDescription] {
        byClass.withLock { $0[ObjectIdentifier(type)] ?? [] }
    }
}
