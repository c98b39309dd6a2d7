/// A description of objects to fetch from a context: of which entity, in which order, how many.
///
/// ```swift
/// var request = FetchRequest<Book>()
/// request.sortDescriptors = [.ascending("title")]
/// let books = try context.fetch(request)
/// ```
///
/// The predicate language comes with a later version of this type; for now a request fetches
/// every object of its entity.
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The entity to fetch; `nil` for the entity whose class is `Result`.
    public var entityName: String?
    public var sortDescriptors: [FetchSortDescriptor] = []
    /// The most objects to return; 0 for no limit.
    public var fetchLimit = 0
    /// How many objects to skip, after sorting.
    public var fetchOffset = 0
    /// Whether objects of the entity's subentities are fetched too.
    public var includesSubentities = true
    /// Whether the context's unsaved inserts and deletes are reflected in the results.
    public var includesPendingChanges = true

    /// A request for the objects of `entityName`, or of the entity whose class is `Result`.
    public init(entityName: String? = nil) {
        self.entityName = entityName
    }
}
