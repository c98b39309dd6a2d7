extension ManagedObjectContext {
    /// What a context works on: its object graph, and whether it has a coordinator yet.
    struct Attachment {
        var graph: ObjectGraph
        var isAttached: Bool
    }

    /// The coordinator of a context made with `init(concurrencyType:)` before it is given one:
    /// an empty model, no stores.
    // `try!`: a model of no entities has nothing to check, so no input reaches the throw.
    static let unattachedCoordinator = PersistentStoreCoordinator(managedObjectModel: try! ManagedObjectModel(entities: []))

    /// The coordinator whose stores the context reads and saves to: its own, or, for a child
    /// context, its parent's (as in Core Data); `nil` until a context made with
    /// ``init(concurrencyType:)`` is given one.
    ///
    /// Setting it is Core Data's way of configuring a context after making it: do it before
    /// using the context. It makes the context a context of `coordinator` with no parent.
    ///
    /// - Precondition: the context holds no objects and no observers yet (a programmer error:
    ///   Core Data configures a context before using it).
    public nonisolated var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { attachment.withLock { $0.isAttached ? $0.graph.coordinator : nil } }
        set { attach(coordinator: newValue, parent: nil) }
    }

    /// The parent context of a child context; `nil` for a context on a coordinator.
    ///
    /// Setting it is Core Data's way of making a child context (``init(concurrencyType:parent:)``
    /// does the same in one step): do it before using the context.
    ///
    /// - Precondition: the context holds no objects and no observers yet, and the new parent
    ///   has a coordinator.
    public nonisolated var parent: ManagedObjectContext? {
        get { attachment.withLock { $0.graph.parent } }
        set { attach(coordinator: newValue.map(Self.coordinator(ofParent:)), parent: newValue) }
    }

    static func coordinator(ofParent parent: ManagedObjectContext) -> PersistentStoreCoordinator {
        guard let coordinator = parent.persistentStoreCoordinator else {
            preconditionFailure("a parent context needs a coordinator (or a parent of its own) before it has children")
        }
        return coordinator
    }

    /// Gives the context a new, empty object graph on `coordinator` (and `parent`), keeping the
    /// settings made so far (name, author, merge policy, staleness, undo manager).
    private nonisolated func attach(coordinator: PersistentStoreCoordinator?, parent: ManagedObjectContext?) {
        attachment.withLock { attachment in
            // Safe to touch the graph off the context's executor: a context is configured
            // before it is used (checked here), so nothing else uses its graph now.
            let old = attachment.graph
            precondition(
                old.registered.isEmpty && !old.hasChanges && old.changeObservers.isEmpty && old.observations.isEmpty,
                "set a context's persistentStoreCoordinator or parent before using it: this one holds objects already")
            let graph = ObjectGraph(coordinator: coordinator ?? Self.unattachedCoordinator, parent: parent, settings: old.settings)
            graph.undoManager = old.undoManager
            graph.context = self
            attachment = Attachment(graph: graph, isAttached: coordinator != nil)
        }
    }
}
