import Foundation

/// What persistent history records of a save into a store the coordinator holds whole: one
/// transaction, with a change per object, numbered after the store's log. The SQLite store
/// records its own, in its tables, by the same rules.
enum HistoryRecorder {
    /// The transaction of one commit into one store. `previous` is the store's tables before
    /// the commit: an update's changed properties are those whose values differ from the row
    /// the saving context read (or, without it, the stored row), a delete's tombstone holds the
    /// stored row's values of the attributes its entity keeps.
    static func transaction(
        for changes: ChangeSet, previous: [String: Generation.Table], model: ManagedObjectModel, store: String, log: HistoryLog.State
    ) -> PersistentHistoryTransaction {
        let number = log.lastTransaction + 1
        var changeID = log.lastChange
        var recorded: [PersistentHistoryChange] = []
        func record(_ id: ManagedObjectID, _ type: PersistentHistoryChange.ChangeType, _ updated: Set<String>?, _ tombstone: [String: AttributeValue]?) {
            changeID += 1
            recorded.append(
                PersistentHistoryChange(
                    changeID: changeID, changedObjectID: id, changeType: type, updatedProperties: updated, tombstone: tombstone,
                    transactionNumber: number))
        }
        func stored(_ id: ManagedObjectID) -> StoredRow? {
            id.referenceNumber.flatMap { previous[id.entityName]?[stored: $0] }
        }
        for id in changes.inserted.keys.sorted(by: order) { record(id, .insert, nil, nil) }
        for (id, row) in changes.updated.sorted(by: { order($0.key, $1.key) }) where changes.inserted[id] == nil {
            guard let layout = model.layout(for: id.entityName) else { continue }
            let before = changes.committed[id].map(StoredRow.row) ?? stored(id)
            record(id, .update, before.map { changedProperties(from: $0, to: row, layout: layout) } ?? [], nil)
        }
        for id in changes.deleted.keys.sorted(by: order) {
            var tombstone: [String: AttributeValue]?
            if let layout = model.layout(for: id.entityName), let row = stored(id) {
                let names = tombstoneAttributes(of: layout.entity, model: model, stored: layout.attributes)
                if !names.isEmpty {
                    var values: [String: AttributeValue] = [:]
                    for name in names {
                        if case .attribute(let slot)? = layout.slots[name], let value = row.attribute(slot) { values[name] = value }
                    }
                    tombstone = values
                }
            }
            record(id, .delete, nil, tombstone)
        }
        return PersistentHistoryTransaction(
            transactionNumber: number, storeID: store, timestamp: Date(), author: changes.historyAuthor,
            contextName: changes.historyContextName, bundleID: Bundle.main.bundleIdentifier, processID: ProcessInfo.processInfo.processName,
            changes: recorded)
    }

    /// The properties whose values differ between the row an object had and the one it gets.
    static func changedProperties(from before: StoredRow, to after: Row, layout: EntityLayout) -> Set<String> {
        var names: Set<String> = []
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient && before.attribute(slot) != after.attributes[slot] {
            names.insert(attribute.name)
        }
        for (slot, relationship) in layout.relationships.enumerated()
        where !relationship.isTransient && before.relationship(slot) != after.relationships[slot] {
            names.insert(relationship.name)
        }
        return names
    }

    /// The attributes a deleted object's tombstone keeps, in order (Core Data's rule, the
    /// history format page's §5): the names in the entity's userInfo key
    /// `NSPersistentHistoryTombstoneAttributes`, then its attributes marked to be preserved
    /// after deletion, in `stored` order; then the same for each superentity up to the root;
    /// each name once, and only names of `stored` attributes.
    static func tombstoneAttributes(of entity: EntityDescription, model: ManagedObjectModel, stored: [AttributeDescription]) -> [String] {
        var names: [String] = []
        var level: EntityDescription? = entity
        var seen: Set<String> = []
        while let current = level, seen.insert(current.name).inserted {
            let listed = (current.userInfo["NSPersistentHistoryTombstoneAttributes"] ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let own = Set(current.attributes.map(\.name) + current.inheritedAttributes.map(\.name))
            let marked = stored.filter { own.contains($0.name) && $0.preservesValueInHistoryOnDeletion }.map(\.name)
            for name in listed + marked where !names.contains(name) && stored.contains(where: { $0.name == name && !$0.isTransient }) {
                names.append(name)
            }
            level = current.superentityName.flatMap { model.entitiesByName[$0] }
        }
        return names
    }

    private static func order(_ a: ManagedObjectID, _ b: ManagedObjectID) -> Bool {
        (a.entityName, a.referenceNumber ?? 0) < (b.entityName, b.referenceNumber ?? 0)
    }
}
