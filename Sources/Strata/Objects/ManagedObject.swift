/// An object of the graph: an instance of an entity, living in one context.
///
/// Subclass it for typed access to an entity's properties with ``Attribute`` and
/// ``Relationship``, and register the subclass on the entity (`EntityDescription(…, class:)`):
///
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("title") var title: String
///     @Relationship("author") var author: Author?
/// }
/// ```
///
/// A managed object is not `Sendable`: it belongs to its context and can be used only inside
/// that context's `perform` or `performAndWait`, which the compiler enforces. Pass its
/// ``objectID`` between contexts instead.
open class ManagedObject {
    let layout: EntityLayout
    /// The object's identity; temporary until its context saves it.
    public internal(set) var objectID: ManagedObjectID
    unowned(safe) var graph: ObjectGraph?

    /// The object's current values (for a fault, none yet).
    ///
    /// An object a fetch made from a table's columns has no row of its own at first: it reads
    /// attribute values from the columns (``attributeValue(at:)``), and the first access to
    /// `storage` or `snapshot` copies them into one row both share, as before.
    var storage: Row {
        get {
            materialize()
            return values
        }
        set {
            values = newValue
            ownsValues = true
        }
        _modify {
            materialize()
            yield &values
        }
    }

    /// The values as last read from or saved to the store; `nil` for an object never saved.
    var snapshot: Row? {
        get {
            materialize()
            if case .row(let row) = stored { return row }
            return nil
        }
        set {
            materialize()
            stored = newValue.map(Stored.row) ?? .none
        }
    }

    /// The object's snapshot, where it is.
    private enum Stored {
        /// Never saved.
        case none
        case row(Row)
        /// A position in a table's columns, not copied yet: the snapshot, and the values too
        /// unless `ownsValues`.
        case column(StoredColumns, Int)
    }

    /// The current values, when `ownsValues`; otherwise they are `stored`'s.
    private var values: Row
    private var ownsValues: Bool
    private var stored: Stored

    /// The current value of an attribute, read from the columns when the object has no row of
    /// its own yet (reading an attribute of each of a million fetched objects makes no row).
    func storedAttributeValue(at index: Int) -> AttributeValue? {
        if !ownsValues, case .column(let columns, let position) = stored { return columns.attributes[index].column[position] }
        return values.attributes[index]
    }

    /// Whether the object reads its values from a table's columns (it has no row of its own).
    var readsFromColumns: Bool { !ownsValues }

    /// After a save that wrote the object's values to `columns` at `position`: reads them
    /// there from now on, and lets its own row go. Only for an object whose values are exactly
    /// that row (every property stored, nothing changed since).
    func rebase(onto columns: StoredColumns, at position: Int) {
        values = Row(attributes: [], relationships: [], version: 0)
        ownsValues = false
        stored = .column(columns, position)
    }

    /// For a fault that holds the row a fetch read for it (Core Data's row cache): when it was
    /// read, in nanoseconds of uptime; 0 when the object holds no such row.
    private(set) var cachedAt: UInt64 = 0

    /// For a fault a fetch with a batch size made: the batch whose rows its firing reads.
    var faultBatch: FaultBatch?

    /// Whether the object was inserted since its context's last ``ObjectsDidChange``: that
    /// notice's mark (``UnprocessedChanges``) while it was, the mark negated once it was deleted
    /// again before the notice.
    var unannouncedInsertMark: Int64 = 0

    /// For an object of no context: the objects (of no context) its relationships hold, by
    /// relationship index. Held strongly, as Core Data's objects hold what they relate to;
    /// inserting the object makes them IDs in its context (``ObjectGraph/insert(_:)``).
    var detachedTargets: [Int: [ManagedObject]] = [:]

    /// Makes the object (a fault) hold `row`, read by a fetch at `time`: it fires from it
    /// without asking the store again (``ObjectGraph/fireFromCache(_:)``).
    func cache(_ row: StoredRow, at time: UInt64) {
        switch row {
        case .row(let row):
            values = row
            ownsValues = true
            stored = .row(row)
        case .column(let columns, let position):
            values = Row(attributes: [], relationships: [], version: 0)
            ownsValues = false
            stored = .column(columns, position)
        }
        cachedAt = max(time, 1)
    }

    /// Lets go of the row a fault holds: it reads the store when it fires.
    func forgetCachedRow() {
        guard cachedAt != 0 else { return }
        values = Row(emptyFor: layout)
        ownsValues = true
        stored = .none
        cachedAt = 0
    }

    /// Marks a fault that holds its row as fired: its values are that row.
    func didFireFromCache() {
        cachedAt = 0
        isFault = false
    }

    /// Makes a snapshot still in columns a row of the object's own, shared by the snapshot and
    /// the values (unless they were replaced).
    private func materialize() {
        guard case .column(let columns, let position) = stored else { return }
        let row = columns.columns.row(at: position)
        if !ownsValues {
            values = row
            ownsValues = true
        }
        stored = .row(row)
    }

    /// Whether the object's values have not been loaded yet: they load on first access.
    public internal(set) var isFault: Bool
    /// Whether the object was inserted into its context and not saved yet.
    public internal(set) var isInserted = false
    /// Whether the object was deleted from its context and the delete not saved yet.
    public internal(set) var isDeleted = false
    /// Whether the object has unsaved changes to its values.
    public internal(set) var isUpdated = false

    /// Creates the object a context asked for. Contexts call this initialiser to instantiate a
    /// subclass; insert objects with ``init(context:)`` or
    /// ``ManagedObjectContext/insertNewObject(forEntityName:)``.
    public required init(_ creation: ManagedObjectCreation) {
        layout = creation.layout
        objectID = creation.objectID
        graph = creation.graph
        switch creation.stored {
        case .row(let row)?:
            values = row
            ownsValues = true
            stored = .row(row)
            isFault = false
        case .column(let columns, let position)?:
            values = Row(attributes: [], relationships: [], version: 0)
            ownsValues = false
            stored = .column(columns, position)
            isFault = false
        case nil:
            values = Row(emptyFor: creation.layout)
            ownsValues = true
            stored = .none
            isFault = !creation.objectID.isTemporaryID
        }
    }

    /// The object's entity.
    public var entity: EntityDescription { layout.entity }

    /// The context the object belongs to; `nil` once the context has let it go (after a
    /// reset, or when an insert was rolled back).
    public var managedObjectContext: ManagedObjectContext? { graph?.context }

    /// Whether the object was inserted, changed or deleted since its context last saved.
    public var hasChanges: Bool { isInserted || isUpdated || isDeleted }

    /// The keys this class computes (see ``ComputedKey``); none by default. Return the
    /// superclass's too (`super.computedKeys + […]`) to keep them.
    open class var computedKeys: [ComputedKey] { [] }

    // MARK: Change and access notifications
    //
    // Core Data's, which custom accessors call around `primitiveValue(forKey:)` and
    // `setPrimitiveValue(_:forKey:)` and subclasses override to react to a change. There is no
    // key-value observing on Linux: these are plain methods. Strata calls `willChangeValue` and
    // `didChangeValue` around every set through `@Attribute`, `@Relationship` and
    // `setValue(_:forKey:)` (not around primitive sets, the inverse side a relationship keeps in
    // step, or a merge), so an override sees what the object's own code changes. It does not call
    // the access methods when a property is read: reads are the hot path, and overriding them
    // is rare.

    /// Called before a property changes: loads a fault's values, so that the change lands on
    /// them. Override to react, calling `super`.
    open func willChangeValue(forKey key: String) {
        willAccessValues()
    }

    /// Called after a property changed. Strata records the change itself (the object is
    /// updated whether or not this runs); override to react, calling `super`.
    open func didChangeValue(forKey key: String) {}

    /// Called before a custom accessor reads a property: loads a fault's values.
    open func willAccessValue(forKey key: String?) {
        willAccessValues()
    }

    /// Called after a custom accessor read a property.
    open func didAccessValue(forKey key: String?) {}

    // MARK: Lifecycle, for subclasses

    /// Called once, when the object is first inserted into a context. Set initial values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called at the start of a save that includes the object. Changes made here are saved.
    open func willSave() {}
    /// Called after a save that included the object has landed.
    open func didSave() {}
    /// Called inside the context's `delete(_:)` (once: deleting it again does not call it), before
    /// the delete rules run, as Core Data calls it.
    open func prepareForDeletion() {}
    /// Called before a refresh turns the object back into a fault (its values still there).
    open func willTurnIntoFault() {}
    /// Called after a refresh turned the object back into a fault: its values load again from
    /// the store when next read.
    open func didTurnIntoFault() {}

    // MARK: Validation, for subclasses

    /// Checks the object as a save that inserts it does, as Core Data's `validateForInsert()`:
    /// every attribute through ``validateValue(_:forKey:)`` and every relationship against its
    /// counts. Override to add checks across properties, calling `super` first.
    ///
    /// - Throws: ``ValidationError``: every problem, in one (`.multipleErrors` for several).
    open func validateForInsert() throws {
        try validateProperties()
    }

    /// Checks the object as a save that updates it does, as Core Data's `validateForUpdate()`.
    open func validateForUpdate() throws {
        try validateProperties()
    }

    /// Checks the object as a save that deletes it does, as Core Data's `validateForDelete()`:
    /// a relationship whose delete rule is deny must hold no object that is not deleted too.
    open func validateForDelete() throws {
        if let error = ValidationError.combining(deleteDenials()) { throw error }
    }

    /// Checks one attribute value for `key`, as Core Data's `validateValue(_:forKey:)` and the
    /// `validate<Key>` methods it calls: the default checks it against the model's rules for
    /// the attribute (type, required, bounds, length, pattern). Override it to check your own
    /// keys, or to replace the value (assign to `value`), calling `super` for the model's rules.
    /// The saves' checks call it for every attribute; a replaced value is not written back then.
    open func validateValue(_ value: inout AttributeValue?, forKey key: String) throws {
        guard case .attribute(let index)? = layout.slots[key] else {
            if layout.slots[key] != nil { return }
            throw ValidationError(.unknownKey, entity: entity.name, key: key, objectID: objectID, "the entity has no property with this name")
        }
        if let error = ValidationError.combining(attributeProblems(at: index, value: value)) { throw error }
    }
}

@available(*, unavailable, message: "a managed object belongs to its context; pass its objectID instead")
extension ManagedObject: Sendable {}

extension ManagedObject: Hashable {
    /// Managed objects are equal only to themselves: a context holds one object per ID.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ManagedObject: CustomStringConvertible {
    public var description: String {
        "<\(entity.name) \(objectID)\(isFault ? " fault" : "")>"
    }
}

/// What a context hands a managed object it creates: opaque outside Strata.
///
/// A subclass that declares designated initialisers of its own must also implement
/// `required init(_ creation: ManagedObjectCreation)` and pass it to `super`.
public struct ManagedObjectCreation {
    let layout: EntityLayout
    let objectID: ManagedObjectID
    /// The context's graph; `nil` for an object made without a context.
    unowned(safe) let graph: ObjectGraph?
    /// The stored values, when they are at hand; `nil` makes a fault (or a new object).
    let stored: StoredRow?
}
