/// Inserts objects of one entity from dictionaries of attribute values, without managed
/// objects and in one save (Core Data's `NSBatchInsertRequest`): run it with
/// ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)``.
///
/// Attributes a dictionary (or a filled object) leaves out take their default values; values are
/// converted to the attribute's type as ``ManagedObject/setValue(_:forKey:)`` converts them.
/// Relationships are not set (as in Core Data). No object is validated beyond that: a value of the wrong type, an unknown
/// key or a required attribute without a value or a default fails the whole request, and nothing
/// is inserted. The objects reach contexts only through merging.
public struct BatchInsertRequest: Sendable {
    /// A source of dictionaries: called with an empty dictionary to fill until it returns true
    /// (Core Data's `dictionaryHandler`: "true" means stop, that dictionary not inserted).
    public typealias DictionaryHandler = @Sendable (inout [String: any Sendable]) -> Bool

    public var entityName: String
    public var resultType: BatchResultType = .statusOnly
    var source: Source

    /// A source of objects: called with a new object of the entity to fill until it returns true
    /// (Core Data's `managedObjectHandler`: "true" means stop, that object not inserted). The
    /// object is not in any context of yours, starts with the attributes' defaults and is gone
    /// once filled: set its attributes, typed (`person.name = …`) or by key.
    public typealias ObjectHandler = @Sendable (ManagedObject) -> Bool

    enum Source: Sendable {
        case objects([[String: any Sendable]])
        case handler(DictionaryHandler)
        case objectHandler(ObjectHandler)
    }

    /// Inserts one object per dictionary.
    public init(entityName: String, objects: [[String: any Sendable]]) {
        self.entityName = entityName
        source = .objects(objects)
    }

    /// Inserts one object per dictionary `handler` fills, until it returns true.
    public init(entityName: String, dictionaryHandler handler: @escaping DictionaryHandler) {
        self.entityName = entityName
        source = .handler(handler)
    }

    /// Inserts one object per object `handler` fills, until it returns true.
    public init(entityName: String, managedObjectHandler handler: @escaping ObjectHandler) {
        self.entityName = entityName
        source = .objectHandler(handler)
    }
}
