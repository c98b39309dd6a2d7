import Foundation

/// A store that takes a save as rows (``RowChanges``) rather than as the nodes of a
/// ``SaveChangesRequest``, and records its persistent history itself, in the save's own
/// transaction: the SQLite and PostgreSQL stores. The coordinator calls
/// ``save(_:recording:)`` where it would send a save request through
/// ``IncrementalStore/execute(_:with:)``, on its queue.
package protocol RowSavingStore: RowReadingStore {
    /// Commits a save's rows; returns each saved object's new version. With `history` (the store
    /// tracks persistent history), records the save as one transaction of persistent history in
    /// the same transaction of the store.
    func save(_ changes: RowChanges, recording history: SaveHistory?) throws -> [ManagedObjectID: Int64]

    /// A save with nothing to save, which Core Data still sends to its stores: what the store
    /// does then (the SQLite store writes its metadata if it changed). By default, nothing.
    func saveWithoutChanges() throws
}

extension RowSavingStore {
    package func saveWithoutChanges() throws {}
}
