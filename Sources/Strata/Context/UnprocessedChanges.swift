import Synchronization

/// What a context inserted, changed and deleted since it last processed its pending changes:
/// what its next ``ObjectsDidChange`` says, as Core Data's
/// `NSManagedObjectContextObjectsDidChange` says what changed since the last one.
struct UnprocessedChanges {
    /// The objects inserted since the last notice, in order, as a list and a mark on each
    /// object (``ManagedObject/unannouncedInsertMark``) rather than a table: every set that
    /// follows an insert asks whether its object was inserted since (a new object's each
    /// property, and each inverse a new object's relationship touches), and an insert is then
    /// an append, not a hash. An object deleted since stays listed, its mark turned negative;
    /// inserted again (an undo), it is marked again, not listed twice.
    private var insertedList: [ManagedObject] = []
    private var insertedCount = 0
    /// This notice's mark: unique in the process, so that a mark left on an object from an
    /// earlier notice, or another context's, is never this one's.
    private let mark = Self.marks.add(1, ordering: .relaxed).newValue
    private static let marks = Atomic<Int64>(0)

    private(set) var updated: [ObjectIdentifier: ManagedObject] = [:]
    private(set) var deleted: [ObjectIdentifier: ManagedObject] = [:]

    /// Each object's values before its first change since the last notice, for objects that
    /// were in the context then: what ``ManagedObject/changedValuesForCurrentEvent()`` compares
    /// with.
    private(set) var valuesBefore: [ObjectIdentifier: Row] = [:]

    var isEmpty: Bool { insertedCount == 0 && updated.isEmpty && deleted.isEmpty }

    private func wasInserted(_ object: ManagedObject) -> Bool { object.unannouncedInsertMark == mark }

    /// The objects inserted since the last notice and not deleted since, each once.
    private var inserted: [ManagedObject] { insertedList.filter(wasInserted) }

    /// Records `object`'s values before its first change since the last notice (unless it was
    /// inserted since: it had none).
    mutating func willChange(_ object: ManagedObject) {
        guard !wasInserted(object) else { return }
        let key = ObjectIdentifier(object)
        guard valuesBefore[key] == nil else { return }
        valuesBefore[key] = object.storage
    }

    /// The objects the next notice names, as a notification gives them.
    var objectsByChange: ObjectsByChange {
        ObjectsByChange(inserted: Set(inserted), updated: Set(updated.values), deleted: Set(deleted.values))
    }

    /// Every object the next notice names.
    var objects: [ManagedObject] { inserted + updated.values + deleted.values }

    mutating func insert(_ object: ManagedObject) {
        if object.unannouncedInsertMark == mark { return }
        if object.unannouncedInsertMark != -mark { insertedList.append(object) }
        object.unannouncedInsertMark = mark
        insertedCount += 1
    }

    mutating func update(_ object: ManagedObject) {
        guard !wasInserted(object) else { return }
        let key = ObjectIdentifier(object)
        guard deleted[key] == nil else { return }
        updated[key] = object
    }

    /// An object inserted since the last notice and deleted before it is told of nobody.
    mutating func delete(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        updated[key] = nil
        if wasInserted(object) {
            object.unannouncedInsertMark = -mark
            insertedCount -= 1
        } else {
            deleted[key] = object
        }
    }

    /// The notice of what changed, and a fresh start (whose mark no object has yet).
    mutating func take() -> ObjectsDidChange {
        defer { self = UnprocessedChanges() }
        var insertedIDs = Set<ManagedObjectID>(minimumCapacity: insertedCount)
        for object in insertedList where wasInserted(object) { insertedIDs.insert(object.objectID) }
        return ObjectsDidChange(
            insertedObjectIDs: insertedIDs, updatedObjectIDs: Set(updated.values.map(\.objectID)),
            deletedObjectIDs: Set(deleted.values.map(\.objectID)), refreshedObjectIDs: [])
    }
}
