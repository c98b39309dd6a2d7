/// A description of objects to fetch from a context: of which entity, which ones, in which
/// order, how many.
///
/// ```swift
/// var request = FetchRequest<Book>()
/// request.predicate = try FetchPredicate(format: "author.name BEGINSWITH %@", "Jane")
/// request.sortDescriptors = [.ascending("title", options: .caseInsensitive)]
/// let books = try context.fetch(request)
/// ```
///
/// The same request gives managed objects (``ManagedObjectContext/fetch(_:)``), object IDs
/// (``ManagedObjectContext/fetchObjectIDs(_:)``), dictionaries
/// (``ManagedObjectContext/fetchDictionaries(_:)``) or a count
/// (``ManagedObjectContext/count(for:)``): Core Data's result types, as typed methods.
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The entity to fetch; `nil` for the entity whose class is `Result`.
    public var entityName: String?
    /// Which objects to fetch; `nil` for all of them.
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor] = []
    /// The most objects to return; 0 for no limit.
    public var fetchLimit = 0
    /// How many objects to skip, after sorting.
    public var fetchOffset = 0
    /// Whether objects of the entity's subentities are fetched too.
    public var includesSubentities = true
    /// Whether the context's unsaved inserts, changes and deletes are reflected in the results.
    public var includesPendingChanges = true
    /// Accepted for Core Data compatibility. Strata's stores keep every row in memory, so there
    /// is nothing to read in batches: every result object is ready at once.
    public var fetchBatchSize = 0
    /// Accepted for Core Data compatibility. Fetched objects come with their values (the rows are
    /// at hand, so making faults would only cost a second lookup).
    public var returnsObjectsAsFaults = true
    /// Accepted for Core Data compatibility. Related objects are in memory already; following a
    /// relationship costs a lookup, not a round trip to a store.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// For dictionary results: the values each dictionary holds (all attributes when `nil`).
    public var propertiesToFetch: [ExpressionDescription]?
    /// For dictionary results: the key paths to group by; each dictionary is then a group, and
    /// expressions in ``propertiesToFetch`` are evaluated on the group's objects.
    public var propertiesToGroupBy: [String]?
    /// For grouped dictionary results: which groups to keep, by the names of ``propertiesToFetch``.
    public var havingPredicate: FetchPredicate?
    /// For dictionary results: whether equal dictionaries are returned once.
    public var returnsDistinctResults = false
    /// Whether the fetch may use indexes and compiled row tests (tests turn it off to compare
    /// them with the general evaluator).
    var usesFastPaths = true

    /// A request for the objects of `entityName`, or of the entity whose class is `Result`.
    public init(entityName: String? = nil, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}
