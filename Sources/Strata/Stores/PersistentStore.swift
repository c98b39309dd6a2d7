import Foundation

/// A store of objects, added to a ``PersistentStoreCoordinator``: where saved objects live.
///
/// The coordinator holds every store's objects in its current generation and calls a store
/// only to load them when the store is added and to write them when a save commits. Strata's
/// store kinds are subclasses of this class: ``InMemoryStore`` and, for your own file formats,
/// the atomic store. (It is `open` only so that ``AtomicStore`` can be; its initialiser is
/// Strata's own, so subclass ``AtomicStore`` instead.)
///
/// Its metadata (a dictionary of ``MetadataValue``s) always holds the store's UUID under
/// ``storeUUIDKey`` and its type under ``storeTypeKey``.
open class PersistentStore: @unchecked Sendable {
    // Sendable by proof, not by check (a non-final class cannot be checked): every stored
    // property is an immutable `let` of a Sendable type, and the one mutable part, `state`,
    // is behind a Mutex. Subclasses in Strata follow the same rule, and the coordinator calls
    // the loading and committing methods only from its own serial queue.

    /// The metadata key of the store's UUID, which object IDs and URIs carry.
    public static let storeUUIDKey = "StoreUUID"
    /// The metadata key of the store's type.
    public static let storeTypeKey = "StoreType"

    /// The metadata key of the version hashes of the model that wrote the store (entity name →
    /// hash), which ``ManagedObjectModel/isConfiguration(_:compatibleWithStoreMetadata:)`` compares.
    public static let modelVersionHashesKey = "StoreModelVersionHashes"
    /// The metadata key of the version of the hash algorithm behind ``modelVersionHashesKey``:
    /// 3 for Core Data's (as its `NSStoreModelVersionHashesVersion`). Absent in stores that
    /// Strata wrote before it computed Core Data's hashes; those hashes are still recognised,
    /// and replaced with Core Data's at the store's next save.
    public static let modelVersionHashesVersionKey = "StoreModelVersionHashesVersion"
    /// The metadata key of the model's version hashes digest (Core Data's
    /// `NSStoreModelVersionHashesDigest`, base64): see ``ManagedObjectModel/versionHashesDigest``.
    public static let modelVersionHashesDigestKey = "StoreModelVersionHashesDigest"
    /// The metadata key of the model's version checksum (Core Data's
    /// `NSStoreModelVersionChecksumKey`, base64): see ``ManagedObjectModel/versionChecksum``.
    public static let modelVersionChecksumKey = "StoreModelVersionChecksum"
    /// The metadata key of the model that wrote the store, whole (see
    /// ``ManagedObjectModel/init(cachedInStoreMetadata:)``): what lets a tool read a store
    /// without being handed its model, as Core Data's `Z_MODELCACHE` does.
    public static let modelCacheKey = "StoreModelCache"
    /// The metadata key of the version identifiers of the model that wrote the store.
    public static let modelVersionIdentifiersKey = "StoreModelVersionIdentifiers"
    /// The metadata key of the names of the model bundle's versions, up to the one that wrote
    /// the store: how a program tells a store written by a newer version from a foreign one.
    public static let modelVersionHistoryKey = "StoreModelVersionHistory"

    /// The metadata key under which file stores keep, per entity hierarchy, the next reference
    /// number to hand out (so that numbers are never reused, even after deletes).
    public static let nextReferencesKey = "StoreNextReferences"

    /// The metadata key of the entities that migrations renamed: old name → current name, so
    /// that object URIs taken before a rename still resolve.
    public static let entityRenamesKey = "StoreEntityRenames"

    public let type: StoreType
    /// The store's location; `nil` for a store with no file.
    public let url: URL?
    /// The model configuration whose entities the store holds; `nil` for all of them.
    public let configurationName: String?
    /// The options the store was added with.
    public let options: [String: any Sendable]

    private struct State {
        var metadata: [String: MetadataValue] {
            didSet { identifier = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? "" }
        }
        /// The UUID in ``metadata``, kept apart: every object ID a store takes or gives is
        /// checked against it, and reading it must not copy the metadata.
        private(set) var identifier: String
        init(metadata: [String: MetadataValue]) {
            self.metadata = metadata
            identifier = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? ""
        }
        /// Root entity name → the next reference number to hand out in that hierarchy.
        var nextReference: [String: Int64] = [:]
        /// Why the store refuses saves although it was not added read-only.
        var readOnlyReason: String?
    }
    private let state: ThreadLocked<State>

    /// Makes a store; the coordinator calls this when a store is added.
    ///
    /// - Parameters:
    ///   - type: The store's type.
    ///   - configurationName: The model configuration it holds, or `nil` for all entities.
    ///   - url: Its location, or `nil`.
    ///   - options: The options it was added with.
    init(type: StoreType, configurationName: String?, url: URL?, options: [String: any Sendable]) {
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
        state = ThreadLocked(
            State(metadata: [
                Self.storeUUIDKey: .string(UUID().uuidString),
                Self.storeTypeKey: .string(type.rawValue),
            ]))
    }

    /// The store's unique identifier: its UUID, which object IDs and URIs carry.
    public var identifier: String {
        state.withLock { $0.identifier }
    }

    /// The store's metadata. Setting it keeps the store's UUID and type whatever the new value
    /// says; a file store writes it with its next save.
    public var metadata: [String: MetadataValue] {
        get { state.withLock { $0.metadata } }
        set {
            state.withLock { state in
                var metadata = newValue
                metadata[Self.storeUUIDKey] = state.metadata[Self.storeUUIDKey]
                metadata[Self.storeTypeKey] = state.metadata[Self.storeTypeKey]
                state.metadata = metadata
            }
        }
    }

    /// Whether saves into the store are refused: it was added with
    /// ``PersistentStoreOption/readOnly``, or it must be (see ``readOnlyReason``).
    public var isReadOnly: Bool {
        (options[PersistentStoreOption.readOnly] as? Bool) ?? false || readOnlyReason != nil
    }

    /// Why a store added for writing refuses saves, when it does: a store that records
    /// persistent history added without ``PersistentStoreOption/persistentHistoryTracking``.
    public var readOnlyReason: String? {
        state.withLock { $0.readOnlyReason }
    }

    /// Makes the store refuse saves, for `reason`.
    package func forceReadOnly(because reason: String) {
        state.withLock { $0.readOnlyReason = reason }
    }

    /// Whether the coordinator announces other processes' commits to the store
    /// (``PersistentStoreOption/remoteChangeNotifications``).
    public var postsRemoteChanges: Bool {
        (options[PersistentStoreOption.remoteChangeNotifications] as? Bool) ?? false
    }

    /// Whether the store records persistent history (``PersistentStoreOption/persistentHistoryTracking``).
    public var tracksPersistentHistory: Bool {
        (options[PersistentStoreOption.persistentHistoryTracking] as? Bool) ?? false
    }

    /// Hands out `count` new reference numbers for objects of the hierarchy rooted at
    /// `rootEntity`. Numbers start at 1 and are never handed out twice.
    func newReferenceNumbers(rootEntity: String, count: Int) -> ClosedRange<Int64> {
        state.withLock { state in
            let first = state.nextReference[rootEntity] ?? 1
            state.nextReference[rootEntity] = first + Int64(count)
            return first...(first + Int64(count) - 1)
        }
    }

    /// Reference numbers for `count` new objects of `entity`; the coordinator calls it when a
    /// context obtains permanent IDs. Atomic stores route it through `newReferenceObject(for:)`.
    func makeReferenceNumbers(for entity: EntityDescription, rootEntity: String, count: Int) throws -> [Int64] {
        Array(newReferenceNumbers(rootEntity: rootEntity, count: count))
    }

    /// Per hierarchy root, the next reference number: what a file store writes with its data.
    var nextReferences: [String: Int64] {
        get { state.withLock { $0.nextReference } }
        set { state.withLock { $0.nextReference = newValue } }
    }

    /// Replaces the metadata whole, the store's UUID included: for stores that read theirs
    /// from a file.
    package func replaceMetadata(_ metadata: [String: MetadataValue]) {
        state.withLock { state in
            var metadata = metadata
            metadata[Self.storeTypeKey] = state.metadata[Self.storeTypeKey]
            if metadata[Self.storeUUIDKey]?.stringValue?.isEmpty ?? true {
                metadata[Self.storeUUIDKey] = state.metadata[Self.storeUUIDKey]
            }
            state.metadata = metadata
        }
    }

    // MARK: Called by the coordinator, on its queue

    /// Reads the store's objects into tables, entity name → rows. The base store is empty.
    func loadTables(model: ManagedObjectModel) throws -> [String: Generation.Table] {
        [:]
    }

    /// Makes a commit durable: `changes` are what changed, `tables` the store's objects after
    /// the commit and `previous` before it. Throwing refuses the commit, which then changes
    /// nothing. The base store keeps nothing beyond the coordinator's generations, so it has
    /// nothing to write.
    func commit(
        _ changes: ChangeSet, tables: [String: Generation.Table], previous: [String: Generation.Table],
        model: ManagedObjectModel
    ) throws {}

    /// The store is leaving its coordinator.
    func didRemove() {}

    // MARK: Persistent history, called by the coordinator on its queue for stores that track it
    //
    // A store whose objects the coordinator holds keeps its history in `historyLog`, which the
    // coordinator appends to as it commits; the SQLite store keeps its own in its tables.

    /// The history of a store the coordinator holds whole; the SQLite store's is in its file.
    let historyLog = HistoryLog()

    /// The transactions after `position`, oldest first, whose author `authors` keeps.
    func historyTransactions(
        after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter
    ) throws -> [PersistentHistoryTransaction] {
        historyLog.transactions(after: position, authors: authors, store: identifier)
    }

    /// Deletes the transactions before `position`, durably; returns how many went.
    func deleteHistory(before position: PersistentHistoryChangeRequest.Position) throws -> Int {
        let (kept, removed) = historyLog.deleting(before: position, store: identifier)
        guard removed > 0 else { return 0 }
        let previous = historyLog.current
        historyLog.current = kept
        do {
            try historyDidShrink()
        } catch {
            historyLog.current = previous
            throw error
        }
        return removed
    }

    /// Makes a deletion from ``historyLog`` durable: a file store writes itself again.
    func historyDidShrink() throws {}

    /// The number of the last transaction recorded (0 when none was), and of the first one
    /// history still holds (`last + 1` when it holds none): a token of a number below
    /// `firstKept - 1` has expired, the transactions after it deleted.
    func historyBounds() throws -> (last: Int64, firstKept: Int64) {
        historyLog.bounds
    }
}

extension PersistentStore: CustomStringConvertible {
    public var description: String {
        "\(type) store \(identifier)\(url.map { " at \($0.path)" } ?? "")"
    }
}
