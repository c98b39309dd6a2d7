/// What one save asks the coordinator to commit, with the versions it read: `Sendable`, so it
/// crosses from a context to the coordinator. All IDs are permanent.
struct ChangeSet: Sendable {
    /// New objects; their rows' versions are ignored (a new row starts at version 1).
    var inserted: [ManagedObjectID: Row] = [:]
    /// Changed objects; each row's `version` is the version the context read.
    var updated: [ManagedObjectID: Row] = [:]
    /// Deleted objects, with the version the context read.
    var deleted: [ManagedObjectID: Int64] = [:]
    /// For updated objects, when the context has it: the stored row their changes start from
    /// (of the same version), so that a store may write only what differs, as Core Data's
    /// SQLite store writes only changed columns.
    var committed: [ManagedObjectID: Row] = [:]

    /// Who saved, for the notification the commit sends.
    var origin: ContextDidSaveOrigin?
    /// For a change no context sends (a batch request's): the author and context name
    /// persistent history records, in place of the origin's.
    var author: String?
    var contextName: String?

    /// The author persistent history records.
    var historyAuthor: String? { origin?.transactionAuthor ?? author }
    /// The context name persistent history records.
    var historyContextName: String? { origin?.contextName ?? contextName }

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// The saving context and what it says about itself, carried with its changes.
struct ContextDidSaveOrigin: Sendable {
    let context: ManagedObjectContext
    let transactionAuthor: String?
    let contextName: String?
}
