/// One step of an observed fetch (``ManagedObjectContext/changes(of:sectionNameKeyPath:)``):
/// the result as it is now, and how it differs from the one the observer had before.
public struct FetchedResultsUpdate: Sendable, Hashable {
    /// The result now: sections (one named `""` without a section key path) of object IDs, in order.
    public let snapshot: FetchedResultsSnapshot
    /// Objects that joined the result (every object, in the first update).
    public let insertedObjectIDs: Set<ManagedObjectID>
    /// Objects that left it.
    public let deletedObjectIDs: Set<ManagedObjectID>
    /// Objects that stayed and changed place: order among the others, or section.
    public let movedObjectIDs: Set<ManagedObjectID>
    /// Objects that stayed and changed themselves.
    public let updatedObjectIDs: Set<ManagedObjectID>

    public init(
        snapshot: FetchedResultsSnapshot, insertedObjectIDs: Set<ManagedObjectID>, deletedObjectIDs: Set<ManagedObjectID>,
        movedObjectIDs: Set<ManagedObjectID>, updatedObjectIDs: Set<ManagedObjectID>
    ) {
        self.snapshot = snapshot
        self.insertedObjectIDs = insertedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
        self.movedObjectIDs = movedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
    }

    /// The update that leads from `previous` (none: an empty result) to `snapshot`, with the
    /// objects `updated` since.
    init(from previous: FetchedResultsSnapshot?, to snapshot: FetchedResultsSnapshot, updated: Set<ManagedObjectID>) {
        let old = previous?.itemIdentifiers ?? []
        let new = snapshot.itemIdentifiers
        let oldSet = Set(old)
        let newSet = Set(new)
        var moved: Set<ManagedObjectID> = []
        for case .insert(_, let id, let associated?) in new.difference(from: old).inferringMoves() where associated >= 0 {
            moved.insert(id)
        }
        if let previous, previous.numberOfSections > 1 || snapshot.numberOfSections > 1 {
            func sectionOfItem(_ snapshot: FetchedResultsSnapshot) -> [ManagedObjectID: String] {
                var sections: [ManagedObjectID: String] = [:]
                for section in snapshot.sections { for id in section.itemIdentifiers { sections[id] = section.identifier } }
                return sections
            }
            let (before, after) = (sectionOfItem(previous), sectionOfItem(snapshot))
            for id in newSet.intersection(oldSet) where before[id] != after[id] { moved.insert(id) }
        }
        self.init(
            snapshot: snapshot, insertedObjectIDs: newSet.subtracting(oldSet), deletedObjectIDs: oldSet.subtracting(newSet),
            movedObjectIDs: moved, updatedObjectIDs: updated.intersection(newSet).intersection(oldSet).subtracting(moved))
    }
}
