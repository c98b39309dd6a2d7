/// A delegate told of each change as the whole result, as identifiers: Core Data's
/// `controller(_:didChangeContentWith:)`, which a diffable data source applies. As in Core Data,
/// a delegate that has it is told by it alone (the snapshot is made only for such a delegate:
/// it lists every object).
public protocol FetchedResultsControllerSnapshotDelegate<Result>: FetchedResultsControllerDelegate {
    func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith snapshot: FetchedResultsSnapshot)
}
