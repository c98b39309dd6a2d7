/// A failure of the persistence stack itself: a save that conflicts with another, an object or
/// store that is not there, a store type no one registered.
///
/// Catch one kind with `catch let error as PersistenceError where error.code == .conflict`.
public struct PersistenceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case conflict, objectNotFound, noPersistentStore, storeNotFound, unknownStoreType
            case storeAlreadyAdded, unknownEntity, incompatibleStore, storeFromNewerModel, unavailableGeneration
            case constraintConflict, unsupportedRequest, invalidHistoryToken, historyTokenExpired, readOnlyStore, storeBrokeContract
            case missingStoreURL, invalidOption, storeExists, faultNotFulfilled
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Objects being saved were changed or deleted in the store since the context read
        /// them (optimistic locking). Nothing of the save was written.
        public static let conflict = Code(.conflict)
        /// No object with this ID exists in the store.
        public static let objectNotFound = Code(.objectNotFound)
        /// The coordinator has no store to save new objects into.
        public static let noPersistentStore = Code(.noPersistentStore)
        /// The store is not (or no longer) part of this coordinator.
        public static let storeNotFound = Code(.storeNotFound)
        /// A store type that keeps its objects in a file was added without a URL for it.
        public static let missingStoreURL = Code(.missingStoreURL)
        /// An option given when adding a store has a value the store cannot take (the message
        /// says which and why).
        public static let invalidOption = Code(.invalidOption)
        /// A store is already where one is to be made (a migration's destination): nothing was
        /// written over it.
        public static let storeExists = Code(.storeExists)
        /// No store class is registered for the store type.
        public static let unknownStoreType = Code(.unknownStoreType)
        /// A store for this URL is already part of the coordinator.
        public static let storeAlreadyAdded = Code(.storeAlreadyAdded)
        /// The model has no entity with this name.
        public static let unknownEntity = Code(.unknownEntity)
        /// The store was written by another model (version): its entity hashes differ.
        public static let incompatibleStore = Code(.incompatibleStore)
        /// The store was written by a later version of the model than any this program knows.
        public static let storeFromNewerModel = Code(.storeFromNewerModel)
        /// Objects being saved break a uniqueness constraint; see ``PersistenceError/constraintConflicts``.
        public static let constraintConflict = Code(.constraintConflict)
        /// The store cannot answer the request (a store that does not record persistent history
        /// asked for it, say).
        public static let unsupportedRequest = Code(.unsupportedRequest)
        /// A persistent history token that names none of the coordinator's stores that track
        /// history: it was taken from another store.
        public static let invalidHistoryToken = Code(.invalidHistoryToken)
        /// A persistent history token whose next transactions were deleted: the history after
        /// it is incomplete (Core Data's `NSPersistentHistoryTokenExpiredError`). Read all that
        /// is left, or start again from the current state.
        public static let historyTokenExpired = Code(.historyTokenExpired)
        /// The store is read-only — added with ``PersistentStoreOption/readOnly``, or made so
        /// (its ``PersistentStore/readOnlyReason`` says why) — and a save, batch request or
        /// history deletion would write to it. Nothing was written. Core Data reports these as
        /// `NSPersistentStoreSaveError`.
        public static let readOnlyStore = Code(.readOnlyStore)
        /// A store of your own broke the ``IncrementalStore`` contract: it answered a request
        /// with the wrong kind of result, or gave an ID of another store.
        public static let storeBrokeContract = Code(.storeBrokeContract)
        /// A save would write a change to a relationship whose stored targets the store failed
        /// to give when it was used (a damaged row among them, the database away): it read as
        /// empty then (the failure logged), so the change was made without them and writing it
        /// would drop them. Nothing was written; refresh the object and make the change again.
        /// Core Data raises at the use itself ("could not fulfill a fault").
        public static let faultNotFulfilled = Code(.faultNotFulfilled)
        /// A query generation that is neither the context's nor the current one, or one whose
        /// state its store can no longer read: a PostgreSQL store's generation whose transaction
        /// the server ended, with saves since. Unpin the context (or refresh it) to read on.
        public static let unavailableGeneration = Code(.unavailableGeneration)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The objects concerned (for a conflict: every object that conflicted).
    public var objectIDs: [ManagedObjectID]
    public var message: String
    /// For a conflict: each object's versions and values on both sides. (Values stay out of the
    /// message: stores hold people's data.)
    public var conflicts: [MergeConflict] = []
    /// For a constraint conflict: each constraint broken, and by which objects.
    public var constraintConflicts: [ConstraintConflict] = []

    /// An error of `code` about `objectIDs`: what a store of your own (an ``IncrementalStore``
    /// subclass) throws, such as `.conflict` for objects another save changed since they were read.
    public init(
        _ code: Code, objectIDs: [ManagedObjectID] = [], _ message: String, conflicts: [MergeConflict] = [],
        constraintConflicts: [ConstraintConflict] = []
    ) {
        self.code = code
        self.objectIDs = objectIDs
        self.message = message
        self.conflicts = conflicts
        self.constraintConflicts = constraintConflicts
    }

    public var description: String { message }

    /// The conflict of a save whose updated or deleted objects changed in the store since the
    /// context read them (optimistic locking), naming them in a stable order.
    static func changedSinceRead(_ objectIDs: [ManagedObjectID]) -> PersistenceError {
        let ids = objectIDs.sorted { $0.description < $1.description }
        return PersistenceError(
            .conflict, objectIDs: ids,
            "\(ids.count) object(s) changed in the store since this context read them: "
                + ids.map(\.description).joined(separator: ", ")
                + ". Nothing was saved; refresh the objects (mergeChanges: true keeps your changes) and save again")
    }
}
