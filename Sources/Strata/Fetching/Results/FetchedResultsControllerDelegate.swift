import Foundation

/// What a ``FetchedResultsController`` tells as its result changes: Core Data's
/// `NSFetchedResultsControllerDelegate`, with the controller and objects typed. Every method
/// has a default that does nothing; implement those you need. They are called on the
/// controller's context's executor (the main actor for a main-queue context), while the context
/// processes its pending changes, merges a save, saves, resets or rolls back.
///
/// One change is told as Core Data tells it: ``controllerWillChangeContent(_:)``; section
/// deletions and insertions; object deletions, insertions, moves and updates (a deletion's
/// index path is in the result before the change, an insertion's and a move's new one after
/// it); ``controllerDidChangeContent(_:)``. A delegate that wants the result as identifiers
/// instead, for a diffable data source, conforms to ``FetchedResultsControllerSnapshotDelegate``:
/// as in Core Data, it is then told by that method alone.
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    associatedtype Result: ManagedObject

    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>)
    func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    func controller(
        _ controller: FetchedResultsController<Result>, didChange sectionInfo: FetchedResultsSectionInfo<Result>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    func controllerDidChangeContent(_ controller: FetchedResultsController<Result>)
    /// The index title of a section; `nil` (the default) leaves it to the controller's
    /// ``FetchedResultsController/sectionIndexTitle(forSectionName:)``.
    func controller(_ controller: FetchedResultsController<Result>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) {}
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange sectionInfo: FetchedResultsSectionInfo<Result>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Result>) {}
    public func controller(_ controller: FetchedResultsController<Result>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        nil
    }
}
