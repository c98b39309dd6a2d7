/// Deletes every object of an entity that matches a predicate, or the objects with the IDs
/// given, without managed objects and in one save (Core Data's `NSBatchDeleteRequest`): run it
/// with ``ManagedObjectContext/execute(_:)-(BatchDeleteRequest)``.
///
/// Delete rules apply as Core Data applies them in its store: a cascade deletes the objects it
/// reaches (and theirs, in turn); a nullify takes the deleted objects out of the relationships
/// that point back at them, and fails the request when that would leave a required to-one
/// empty; a deny fails it when the relationship holds an object that is not deleted too; no
/// action leaves the other side pointing at nothing, for you to mend. Objects are not validated
/// otherwise. The deleted objects reach contexts only through merging: ask for
/// ``BatchResultType/objectIDs`` and merge them.
public struct BatchDeleteRequest: Sendable {
    public var entityName: String
    public var predicate: FetchPredicate?
    /// The objects to delete, when given by ID (all of one entity; missing ones are skipped).
    public var objectIDs: [ManagedObjectID]?
    /// Whether objects of subentities that match are deleted too (Core Data's default: yes).
    public var includesSubentities = true
    public var resultType: BatchResultType = .statusOnly

    /// Deletes the objects of `entityName` that match `predicate` (all of them when it is `nil`).
    public init(entityName: String, predicate: FetchPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }

    /// Deletes the objects a fetch request describes (its entity, predicate and
    /// ``FetchRequest/includesSubentities``), as Core Data's `NSBatchDeleteRequest(fetchRequest:)`.
    /// The request names its entity (`FetchRequest<FetchRequestResult>(entityName: "Book")`),
    /// or its result is the class of one: a request that does neither is a programmer error, as
    /// Core Data raises for it.
    public init<Result>(fetchRequest: FetchRequest<Result>) {
        guard let name = fetchRequest.entityName ?? (Result.self as? ManagedObject.Type).map({ $0.entity().name }) else {
            preconditionFailure("a batch delete's fetch request names its entity: FetchRequest<\(Result.self)>(entityName: …)")
        }
        self.init(entityName: name, predicate: fetchRequest.predicate)
        includesSubentities = fetchRequest.includesSubentities
    }

    /// Deletes the objects with these IDs.
    public init(objectIDs: [ManagedObjectID]) {
        entityName = objectIDs.first?.entityName ?? ""
        self.objectIDs = objectIDs
    }
}
