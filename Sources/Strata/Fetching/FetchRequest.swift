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
/// The same request gives managed objects (``ManagedObjectContext/fetch(_:)->[Result]``), object IDs
/// (``ManagedObjectContext/fetchObjectIDs(_:)``), dictionaries
/// (``ManagedObjectContext/fetchDictionaries(_:)``) or a count
/// (``ManagedObjectContext/count(for:)-59wau``): Core Data's result types, as typed methods.
///
/// `Result` is what a fetch gives, as in Core Data's `NSFetchRequest<ResultType>`: the
/// objects' class (`FetchRequest<Book>`, the entity found by it when ``entityName`` is `nil`),
/// or, for Core Data code as it is, `NSDictionary`, ``ManagedObjectID`` or `NSNumber` (a
/// count) — `FetchRequest<NSDictionary>(entityName: "Book")` — or ``FetchRequestResult``
/// (any of them, by ``resultType``). Those name their entity.
public struct FetchRequest<Result>: Sendable {
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
    /// How many objects' values are read at a time (Core Data's batch faulting); 0, the
    /// default, reads every match's values with the fetch.
    ///
    /// With a batch size, a fetch the store answers alone (the SQLite and PostgreSQL stores,
    /// a predicate and sort they translate exactly, no unsaved changes of the entity in play)
    /// reads only the matches' IDs, in order, and returns faults holding nothing, grouped in
    /// batches of this size: the first object of a batch to fire reads the values of the whole
    /// batch in one query (per 200 objects), and ``relationshipKeyPathsForPrefetching`` is
    /// followed from that batch then. Objects of batches never used hold no values; an object
    /// keeps its values once read, until ``ManagedObjectContext/refresh(_:mergeChanges:)``
    /// turns it back into a fault (or the context is reset), so a walk over a large result
    /// that refreshes each batch after it holds one batch's values at a time. Core Data returns
    /// a lazy array; Strata returns an array of faults, and ``returnsObjectsAsFaults`` has no
    /// say: every object is a fault until its batch is read. Other fetches (atomic stores,
    /// whose values are in memory already; predicates the context evaluates) read as without
    /// a batch size.
    public var fetchBatchSize = 0
    /// Whether the objects a fetch registers are returned as faults (Core Data's default,
    /// `true`): `isFault` until a property is first read, which fires the fault from the row
    /// this fetch read (see ``ManagedObjectContext/stalenessInterval``) and calls
    /// `awakeFromFetch()` then. `false` returns them with their values. Objects the context
    /// had registered already are returned as they are (a fault among them takes this fetch's
    /// row, and fires now when this is `false`).
    public var returnsObjectsAsFaults = true
    /// Whether objects the context had registered already take this fetch's values (Core Data's
    /// `shouldRefreshRefetchedObjects`; `false` by default, and then they keep the values they
    /// have). An unchanged object becomes a fault holding the fetched row; a changed one keeps
    /// its unsaved changes on top of the fetched values, as ``ManagedObjectContext/refresh(_:mergeChanges:)``
    /// with `mergeChanges` does. New objects are left alone, and so are the objects of a fetch
    /// with a ``fetchBatchSize`` (its batches are read later, not by this fetch).
    public var shouldRefreshRefetchedObjects = false
    /// Whether the fetch keeps the objects' values (Core Data's default, `true`). `false`
    /// returns faults that hold nothing: each reads the store when it fires. For a context
    /// that needs the objects, not their values (to delete them, say). Objects are then faults
    /// whatever ``returnsObjectsAsFaults`` says.
    public var includesPropertyValues = true
    /// Relationship key paths (`"author"`, `"books.tags"`) whose objects come with the fetched
    /// ones (Core Data's prefetching): registered in the context as faults holding their values,
    /// read together on the SQL stores (per entity and step of a path, one query per 200
    /// objects) instead of one query per object as each fault fires, so that following the
    /// relationships asks the store nothing more. Each key must name a relationship of the
    /// entity the path has reached (``ManagedObjectContext/fetch(_:)->[Result]`` throws otherwise). Not
    /// used without ``includesPropertyValues``.
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
    /// What a fetch of a ``FetchRequestResult`` request gives (Core Data's `resultType`);
    /// requests of a class, `NSDictionary`, ``ManagedObjectID`` or `NSNumber` give that.
    public var resultType = FetchRequestResultType.managedObjectResultType
    /// The stores to search (Core Data's `affectedStores`); `nil`, the default, searches every
    /// store of the coordinator. The context's unsaved new objects count for the store they go
    /// to (their permanent ID's, or the store a save puts new objects in).
    public var affectedStores: [PersistentStore]?
    /// The entity to fetch, as Core Data's `request.entity = …`: setting it sets
    /// ``entityName``. It gives back the entity set, while ``entityName`` still names it; `nil`
    /// for a request made with a name (Core Data resolves that one when it runs).
    public var entity: EntityDescription? {
        get { requestedEntity.flatMap { $0.name == entityName ? $0 : nil } }
        set {
            requestedEntity = newValue
            entityName = newValue?.name
        }
    }
    private var requestedEntity: EntityDescription?
    /// Whether the fetch may use indexes and compiled row tests (tests turn it off to compare
    /// them with the general evaluator).
    var usesFastPaths = true

    /// Whether the fetch searches the store of this identifier (``affectedStores``).
    func searches(store identifier: String) -> Bool {
        affectedStores?.contains { $0.identifier == identifier } ?? true
    }

    /// A request for the objects of `entityName`, or of the entity whose class is `Result`.
    public init(entityName: String? = nil, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    /// The same request, for another result type. Every stored property is copied: one added
    /// above must be added here (`FetchResultTypeTests` compares every property of a copy).
    func retyped<Other>(to _: Other.Type) -> FetchRequest<Other> {
        var copy = FetchRequest<Other>(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.fetchBatchSize = fetchBatchSize
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.includesPropertyValues = includesPropertyValues
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        copy.resultType = resultType
        copy.requestedEntity = requestedEntity
        copy.affectedStores = affectedStores
        copy.usesFastPaths = usesFastPaths
        return copy
    }
}
