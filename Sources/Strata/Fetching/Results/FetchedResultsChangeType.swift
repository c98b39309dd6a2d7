/// What happened to an object or a section of a ``FetchedResultsController``'s result: Core
/// Data's `NSFetchedResultsChangeType`, with its raw values.
public enum FetchedResultsChangeType: UInt, Sendable, Hashable {
    /// The object (or section) joined the result: it is at `newIndexPath`.
    case insert = 1
    /// The object (or section) left the result: it was at `indexPath`.
    case delete = 2
    /// The object moved from `indexPath` to `newIndexPath` (a sort key, or its section, changed).
    case move = 3
    /// The object changed and stayed where it was.
    case update = 4
}
