#if !canImport(Darwin)
/// Foundation's `UndoManager`, which Linux's Foundation does not have: a stack of undo groups
/// and one of redo groups, with the API a context and its users call.
///
/// A context with an undo manager (``ManagedObjectContext/undoManager``) registers every change
/// made in it; each call of ``ManagedObjectContext/processPendingChanges()`` (the end of every
/// `perform` block, a save, a fetch) registers what changed since the last as one group, so
/// that one `undo()` takes back one block's changes. An explicit
/// ``beginUndoGrouping()``/``endUndoGrouping()`` around several gathers them into one.
///
/// Not `Sendable`, as Foundation's is not: it belongs to the context that uses it and is
/// called inside that context's `perform`.
public final class UndoManager {
    private struct Action {
        let run: () -> Void
    }

    /// One group: its actions (run last first) and nested groups flattened into it.
    private struct Group {
        var actions: [Action] = []
        var actionName = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The groups open now, innermost last.
    private var openGroups: [Group] = []
    private var disabledCount = 0

    /// Whether a registration outside any group opens one of its own (Foundation's default,
    /// `true`), closed by the next ``undo()`` or ``endUndoGrouping()``: with no run loop here,
    /// no event ends it. A context's registrations come in groups of their own.
    public var groupsByEvent = true
    /// How many groups the undo stack keeps (0: no limit); the oldest go first.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Whether ``undo()`` is running: what it registers goes to the redo stack.
    public private(set) var isUndoing = false
    /// Whether ``redo()`` is running.
    public private(set) var isRedoing = false

    public init() {}

    /// How deeply groups are open now.
    public var groupingLevel: Int { openGroups.count }
    /// Whether registrations are recorded (see ``disableUndoRegistration()``).
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }
    public var canUndo: Bool { !undoStack.isEmpty || openGroups.first.map { !$0.actions.isEmpty } == true }
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The name of the group ``undo()`` would take back.
    public var undoActionName: String { undoStack.last?.actionName ?? "" }
    /// The name of the group ``redo()`` would do again.
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Opens a group: what is registered until the matching ``endUndoGrouping()`` is undone at once.
    public func beginUndoGrouping() {
        openGroups.append(Group())
    }

    /// Closes the innermost group; a nested one joins its parent, an outermost one goes onto
    /// the stack (the undo stack, or the redo stack while undoing). An empty group is dropped.
    public func endUndoGrouping() {
        guard let group = openGroups.popLast() else { return }
        if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].actions += group.actions
            if openGroups[openGroups.count - 1].actionName.isEmpty { openGroups[openGroups.count - 1].actionName = group.actionName }
            return
        }
        guard !group.actions.isEmpty else { return }
        if isUndoing {
            redoStack.append(group)
        } else {
            undoStack.append(group)
            if !isRedoing { redoStack.removeAll() }  // a new change forgets what was undone
            trim()
        }
    }

    /// Records `handler` to run on `target` when the current group is undone (or, while
    /// undoing, redone). Outside a group, with ``groupsByEvent``, opens one first.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            guard groupsByEvent || isUndoing || isRedoing else { return }
            beginUndoGrouping()
        }
        openGroups[openGroups.count - 1].actions.append(Action { [weak target] in if let target { handler(target) } })
    }

    /// Names the current group (shown as "Undo <name>").
    public func setActionName(_ name: String) {
        if openGroups.isEmpty { undoStack.indices.last.map { undoStack[$0].actionName = name } } else {
            openGroups[openGroups.count - 1].actionName = name
        }
    }

    /// Takes back the last group (closing an event group still open first): its actions run,
    /// last first, and what they register becomes one redo group.
    public func undo() {
        if groupsByEvent, openGroups.count == 1 { endUndoGrouping() }
        guard openGroups.isEmpty, let group = undoStack.popLast() else { return }
        isUndoing = true
        defer { isUndoing = false }
        run(group)
    }

    /// Does the last undone group again.
    public func redo() {
        guard openGroups.isEmpty, let group = redoStack.popLast() else { return }
        isRedoing = true
        defer { isRedoing = false }
        run(group)
    }

    /// Stops recording registrations until as many ``enableUndoRegistration()`` calls.
    public func disableUndoRegistration() { disabledCount += 1 }
    public func enableUndoRegistration() { disabledCount = max(0, disabledCount - 1) }

    /// Forgets every group, undo and redo.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
    }

    private func run(_ group: Group) {
        beginUndoGrouping()
        openGroups[0].actionName = group.actionName
        for action in group.actions.reversed() { action.run() }
        endUndoGrouping()
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }
}
#endif
