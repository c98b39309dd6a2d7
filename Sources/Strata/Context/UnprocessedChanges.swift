/// What a context inserted, changed and deleted since it last processed its pending changes:
/// what its next ``ObjectsDidChange`` says, as Core Data's
/// `NSManagedObjectContextObjectsDidChange` says what changed since the last one.
struct UnprocessedChanges {
    private(set) var inserted: [ObjectIdentifier: ManagedObject] = [:]
    private(set) var updated: [ObjectIdentifier: ManagedObject] = [:]
    private(set) var deleted: [ObjectIdentifier: ManagedObject] = [:]

    /// Each object's values before its first change since the last notice, for objects that
    /// were in the context then: what ``ManagedObject/changedValuesForCurrentEvent()`` compares
    /// with.
    private(set) var valuesBefore: [ObjectIdentifier: Row] = [:]

    /// The object inserted last, while it is among `inserted`: the sets that follow an insert
    /// (each property of a new object, in turn) find it there without hashing, twice per set.
    private var lastInserted: ObjectIdentifier?

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    private func wasInserted(_ key: ObjectIdentifier) -> Bool { key == lastInserted || inserted[key] != nil }

    /// Records `object`'s values before its first change since the last notice (unless it was
    /// inserted since: it had none).
    mutating func willChange(_ object: ManagedObject) {
        // An object inserted since is asked about first: a new object's every set comes here.
        let key = ObjectIdentifier(object)
        guard !wasInserted(key), valuesBefore[key] == nil else { return }
        valuesBefore[key] = object.storage
    }

    /// The objects the next notice names, as a notification gives them.
    var objectsByChange: ObjectsByChange {
        ObjectsByChange(inserted: Set(inserted.values), updated: Set(updated.values), deleted: Set(deleted.values))
    }

    /// Every object the next notice names.
    var objects: [ManagedObject] { Array(inserted.values) + updated.values + deleted.values }

    mutating func insert(_ object: ManagedObject) {
        inserted[ObjectIdentifier(object)] = object
        lastInserted = ObjectIdentifier(object)
    }

    mutating func update(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        guard !wasInserted(key), deleted[key] == nil else { return }
        updated[key] = object
    }

    /// An object inserted since the last notice and deleted before it is told of nobody.
    mutating func delete(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        updated[key] = nil
        if key == lastInserted { lastInserted = nil }
        if inserted.removeValue(forKey: key) == nil { deleted[key] = object }
    }

    /// The notice of what changed, and a fresh start.
    mutating func take() -> ObjectsDidChange {
        defer { self = UnprocessedChanges() }
        return ObjectsDidChange(
            insertedObjectIDs: Set(inserted.values.map(\.objectID)), updatedObjectIDs: Set(updated.values.map(\.objectID)),
            deletedObjectIDs: Set(deleted.values.map(\.objectID)), refreshedObjectIDs: [])
    }
}
