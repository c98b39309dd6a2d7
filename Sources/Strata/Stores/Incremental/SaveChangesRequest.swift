/// The changes of one save, as an ``IncrementalStore`` commits them: Core Data's
/// `NSSaveChangesRequest`, with the versions the saving context read.
///
/// The store applies all of them or none. An updated or deleted object whose stored version is
/// not `version` (another save changed or deleted it meanwhile) makes the save fail with a
/// ``PersistenceError`` of code `.conflict` naming the objects; two objects that would share the
/// values of a uniqueness constraint fail it with code `.constraintConflict`.
public struct SaveChangesRequest: Sendable {
    /// New objects; their versions are to be ignored (a new object starts at 1).
    public var insertedObjects: [IncrementalStoreNode]
    /// Changed objects, each with the version its context read.
    public var updatedObjects: [IncrementalStoreNode]
    /// Deleted objects, with the version their context read.
    public var deletedObjects: [ManagedObjectID: Int64]

    public init(insertedObjects: [IncrementalStoreNode], updatedObjects: [IncrementalStoreNode], deletedObjects: [ManagedObjectID: Int64]) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
    }
}
