/// One section of a ``FetchedResultsController``'s result: Core Data's
/// `NSFetchedResultsSectionInfo`, as a value.
public struct FetchedResultsSectionInfo<Result: ManagedObject> {
    /// The section's name: the section key's value, as text (`""` for `nil`).
    public let name: String
    /// The section's index title (see ``FetchedResultsController/sectionIndexTitle(forSectionName:)``).
    public let indexTitle: String?
    /// Where the section's objects are in ``FetchedResultsController/fetchedObjects``.
    let range: Range<Int>
    private let all: [Result]

    init(name: String, indexTitle: String?, range: Range<Int>, all: [Result]) {
        self.name = name
        self.indexTitle = indexTitle
        self.range = range
        self.all = all
    }

    /// How many objects the section holds.
    public var numberOfObjects: Int { range.count }

    /// The section's objects, in order.
    public var objects: [Result] { Array(all[range]) }
}
