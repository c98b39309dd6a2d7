import Foundation

/// What persistent history records of one save beyond its rows, for a ``RowSavingStore`` that
/// records history in its own tables, in the save's own
/// transaction: who saved, and the properties each update changed.
package struct SaveHistory: Sendable {
    /// The saving context's transaction author and name (or a batch request's).
    package let author: String?
    package let contextName: String?
    /// The saving program's bundle identifier and process name, as Core Data records them.
    package let bundleID: String?
    package let processID: String?
    /// The properties each update changes: those whose values differ from the stored row the
    /// update starts from. An update whose stored row has another version than the one its
    /// context read is missing here: its save fails on the conflict.
    package let updatedProperties: [ManagedObjectID: Set<String>]

    package init(
        author: String?, contextName: String?, bundleID: String? = Bundle.main.bundleIdentifier,
        processID: String? = ProcessInfo.processInfo.processName, updatedProperties: [ManagedObjectID: Set<String>]
    ) {
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.updatedProperties = updatedProperties
    }

    /// The attributes a deleted object of `layout`'s entity keeps in its tombstone, in order
    /// (Core Data's rule: ``AttributeDescription/preservesValueInHistoryOnDeletion`` and the
    /// `NSPersistentHistoryTombstoneAttributes` user-info key, up to the root entity).
    package static func tombstoneAttributes(of layout: EntityLayout, in model: ManagedObjectModel) -> [String] {
        HistoryRecorder.tombstoneAttributes(of: layout.entity, model: model, stored: layout.attributes)
    }
}

extension SaveHistory {
    /// The history of `changes`, reading from `store` the stored row of an update whose context
    /// did not keep it. A stored row at the version the context read is the row the update
    /// starts from (every save raises the version), so it is read outside the save's transaction.
    init(_ changes: ChangeSet, store: any RowSavingStore, model: ManagedObjectModel) throws {
        author = changes.historyAuthor
        contextName = changes.historyContextName
        bundleID = Bundle.main.bundleIdentifier
        processID = ProcessInfo.processInfo.processName
        var updated: [ManagedObjectID: Set<String>] = [:]
        for (id, row) in changes.updated where changes.inserted[id] == nil {
            guard let layout = model.layout(for: id.entityName) else { continue }
            let before = try changes.committed[id] ?? store.row(forObject: id, layout: layout, in: CurrentStateSnapshot())
            guard let before, before.version == row.version else { continue }
            updated[id] = HistoryRecorder.changedProperties(from: .row(before), to: row, layout: layout)
        }
        updatedProperties = updated
    }
}
