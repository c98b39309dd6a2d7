import Dispatch
import OrderedCollections

/// A scratch pad of managed objects: where objects are fetched, inserted, changed and deleted,
/// until ``save()`` commits the changes through the coordinator.
///
/// A context is an actor. A ``ConcurrencyType/privateQueue`` context runs on a serial queue of
/// its own; a ``ConcurrencyType/mainQueue`` context runs on the main queue (the main actor's
/// executor), for code that drives a user interface or the main loop of a tool. Use its
/// objects inside ``perform(_:)`` (async) or ``performAndWait(_:)`` (blocking), whose closure
/// receives the context isolated:
///
/// ```swift
/// let title = try await context.perform { context in
///     let book = try Book(context: context)
///     book.title = "Notes"
///     try context.save()
///     return book.title
/// }
/// ```
///
/// Managed objects are not `Sendable`, so the compiler keeps them inside their context; pass
/// ``ManagedObjectID``s between contexts.
///
/// Each read (a fetch, a count, a fault) reads one immutable generation of the stores, so that
/// it never sees half of a save: by default the latest, as Core Data's contexts do with no query
/// generation; pinned with ``setQueryGenerationFrom(_:)`` `.current`, the one current then, until
/// it is unpinned, saves, refreshes or resets (Core Data's query generations, here for every
/// store).
public actor ManagedObjectContext {
    /// The kinds of executor a context runs on.
    public enum ConcurrencyType: Sendable, Hashable {
        /// A serial queue of the context's own.
        case privateQueue
        /// The main queue, shared with the main actor.
        case mainQueue
    }

    public nonisolated let concurrencyType: ConcurrencyType
    /// The queue executor of a private-queue context; `nil` for the main queue.
    nonisolated let queueExecutor: DispatchQueueExecutor?
    /// The context's object graph and whether it has a coordinator yet: replaced, before the
    /// context is used, when Core Data's way of configuring a context sets its coordinator or
    /// parent after `init(concurrencyType:)` (`ManagedObjectContext+Configuration.swift`).
    /// The lock guards the replacement only: the graph it hands out is used on the context's
    /// executor alone (``graph`` is isolated), and it is replaced only while nothing uses it
    /// (no objects, no observers: checked), so no graph is ever touched from two threads.
    nonisolated let attachment: ThreadLocked<Attachment>
    /// The context's objects and changes.
    var graph: ObjectGraph { attachment.withLock { $0.graph } }

    // The settings below may be set from anywhere, as Core Data code sets them right after
    // making a context (`container.viewContext.mergePolicy = …`): they are under a lock of
    // their own (``ContextSettings``), and a save or a fault reads them where it uses them.

    /// A name for the context, for logs, debugging and save notifications.
    public nonisolated var name: String? {
        get { settings[\.name] }
        set { settings[\.name] = newValue }
    }

    /// Who the context's saves are by, recorded in their notifications (Core Data's
    /// `transactionAuthor`).
    public nonisolated var transactionAuthor: String? {
        get { settings[\.transactionAuthor] }
        set { settings[\.transactionAuthor] = newValue }
    }

    /// What a save does when another save changed the same objects first. ``MergePolicy/error``
    /// by default, as in Core Data.
    public nonisolated var mergePolicy: MergePolicy {
        get { settings[\.mergePolicy] }
        set { settings[\.mergePolicy] = newValue }
    }

    /// How old, in seconds, the row a fetch left in a fault may be when the fault fires
    /// (Core Data's `stalenessInterval`). Negative, the default, as in Core Data: any age — a
    /// fault a fetch returned fires with the values that fetch read, without asking the store
    /// again. 0: never — every fault reads the store (the latest generation, unless the context
    /// is pinned). It does not change objects already fired: refresh or merge them for that.
    ///
    /// Strata keeps that row in the object, not in the coordinator: another context's save
    /// reaches a fault's row when this context merges it (which lets the row go) or refreshes
    /// the object, not by itself.
    public nonisolated var stalenessInterval: Double {
        get { settings[\.stalenessInterval] }
        set { settings[\.stalenessInterval] = newValue }
    }

    /// The context's undo manager (Core Data's `undoManager`): `nil` by default, as for Core
    /// Data's contexts on iOS and every background context, so that nothing is recorded. Given
    /// one, the context registers every change made in it — attribute values, relationships on
    /// both sides, inserts, deletes and what their delete rules do — one group per
    /// ``processPendingChanges()`` (the end of each `perform` block), nested in the group the
    /// caller has open, if any. `undo()` puts the objects back as they were, and their inserted,
    /// deleted and updated state with them; `redo()` does the change again. Use it inside the
    /// context's `perform`, as the objects it restores. A rollback or reset empties it.
    ///
    /// Merges of other contexts' saves, refreshes and faults firing are not changes made in the
    /// context: they are not registered.
    public var undoManager: UndoManager? {
        get { graph.undoManager }
        set {
            graph.undoManager = newValue
            graph.undoJournal = [:]
        }
    }

    /// The context's own saves, from now on.
    public nonisolated var didSaveNotifications: AsyncStream<ContextDidSave> { ownSaves.subscribe() }
    /// What changes in the context (its saves, merges and refreshes), from now on.
    public nonisolated var objectsDidChangeNotifications: AsyncStream<ObjectsDidChange> { changes.subscribe() }
    nonisolated let ownSaves = Broadcast<ContextDidSave>()
    nonisolated let changes = Broadcast<ObjectsDidChange>()
    /// The settings Core Data code sets from outside the context (name, author, merge policy,
    /// staleness, automatic merging), shared with its graph.
    nonisolated let settings = ContextSettings()

    /// Makes a context on `coordinator`. Each of its reads reads the latest generation of the
    /// stores, unless it pins one (``setQueryGenerationFrom(_:)``).
    public init(concurrencyType: ConcurrencyType, persistentStoreCoordinator coordinator: PersistentStoreCoordinator) {
        self.init(concurrencyType: concurrencyType, coordinator: coordinator, parent: nil)
    }

    /// Makes a child context of `parent`: it reads the parent's objects, unsaved changes
    /// included (as they are at its first read, refresh or reset), and its saves push its
    /// changes into the parent, whose own save takes them to the store. Core Data's parent
    /// contexts; a child's reads and saves enter the parent's executor synchronously (in place
    /// when the parent's own block waits on the child, as in Core Data). The pushed changes are the parent's pending changes:
    /// a main-queue parent processes and announces them on the main queue's next turn (Core
    /// Data: at the end of the run loop's turn), a private-queue parent at the end of its next
    /// `perform` or at ``processPendingChanges()``.
    ///
    /// - Precondition: `parent` has a coordinator (its own, or its parent's).
    public init(concurrencyType: ConcurrencyType, parent: ManagedObjectContext) {
        self.init(concurrencyType: concurrencyType, coordinator: Self.coordinator(ofParent: parent), parent: parent)
    }

    /// Makes a context with neither coordinator nor parent yet, as Core Data's
    /// `init(concurrencyType:)`: give it one before using it, as Core Data code does right
    /// after making it —
    ///
    /// ```swift
    /// let context = ManagedObjectContext(concurrencyType: .privateQueue)
    /// context.persistentStoreCoordinator = coordinator     // or: context.parent = viewContext
    /// ```
    ///
    /// Until then it reads an empty model with no stores: a fetch or an insert fails with a
    /// typed error (Core Data raises).
    public init(concurrencyType: ConcurrencyType) {
        self.init(concurrencyType: concurrencyType, coordinator: nil, parent: nil)
    }

    private init(concurrencyType: ConcurrencyType, coordinator: PersistentStoreCoordinator?, parent: ManagedObjectContext?) {
        self.concurrencyType = concurrencyType
        queueExecutor = concurrencyType == .privateQueue ? DispatchQueueExecutor(label: "strata.context") : nil
        let graph = ObjectGraph(coordinator: coordinator ?? Self.unattachedCoordinator, parent: parent, settings: settings)
        attachment = ThreadLocked(Attachment(graph: graph, isAttached: coordinator != nil))
        graph.context = self
    }

    deinit {
        settings[\.mergingTask]?.cancel()
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        queueExecutor?.asUnownedSerialExecutor() ?? MainActor.sharedUnownedExecutor
    }

    /// Runs `body` on the context's executor, and returns its result.
    ///
    /// The closure receives the context isolated, so it can use the context and its objects
    /// synchronously; objects cannot leave it, as they are not `Sendable`, and it is
    /// `@Sendable` so that it cannot capture another context's objects either.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block then does not run); whatever the block throws.
    public func perform<T: Sendable>(_ body: @Sendable (isolated ManagedObjectContext) throws -> T) async throws -> T {
        try Task.checkCancellation()
        // As Core Data ends each perform block: what the block changed is processed and announced.
        defer { processPendingChanges() }
        return try Self.$performing.withValue(self) { try body(self) }
    }

    /// Runs `body` on the context's executor and waits for it: Core Data's `performAndWait`.
    ///
    /// Nested calls run in place, without deadlocking, as Core Data's do: on the context's own
    /// executor, and also from a block of another context entered from this one's (a parent's
    /// block that waits on its child, whose block reads the parent). Do not call it for a
    /// main-queue context from a thread that the main queue is waiting on.
    ///
    /// The closure is `@Sendable`: it runs on the context's queue, so it must not capture the
    /// caller's objects (use their IDs).
    public nonisolated func performAndWait<T: Sendable>(
        _ body: @Sendable (isolated ManagedObjectContext) throws -> T
    ) rethrows -> T {
        if let queueExecutor {
            return try queueExecutor.runSynchronously { try Self.$performing.withValue(self) { try self.assumeIsolated { try body($0) } } }
        }
        return try DispatchQueueExecutor.runOnMainSynchronously { try Self.$performing.withValue(self) { try self.assumeIsolated { try body($0) } } }
    }

    /// Whether the context has unsaved inserts, changes or deletes.
    public var hasChanges: Bool { graph.hasChanges }

    /// The objects the context holds.
    public var registeredObjects: Set<ManagedObject> { Set(graph.registered.values) }
    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { Set(graph.inserted.values) }
    /// Objects changed since the last save.
    public var updatedObjects: Set<ManagedObject> { Set(graph.updated.values) }
    /// Objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> { Set(graph.deleted.values) }
}
