/// An incremental store that records persistent history in its own tables, in each save's own
/// transaction (the SQLite store in Core Data's, the PostgreSQL store in the same layout), and
/// reads and deletes it. Declared by conforming; a store of your own records none, and a
/// history request to it is refused (`.unsupportedRequest`).
///
/// Each is called on the coordinator's queue.
package protocol HistoryKeepingStore: IncrementalStore {
    /// The transactions of persistent history after `position` (oldest first) whose author
    /// `authors` lets through.
    func recordedHistory(after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter) throws
        -> [PersistentHistoryTransaction]

    /// Deletes the transactions before `position` (every one for a `nil` token); returns how many.
    func removeHistory(before position: PersistentHistoryChangeRequest.Position) throws -> Int

    /// The number of the last transaction ever recorded (0 for none), and of the first one the
    /// history still holds (`last + 1` when it holds none): a token below it has expired.
    func recordedHistoryBounds() throws -> (last: Int64, firstKept: Int64)
}
