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
    var storage: Row
    /// The values as last read from or saved to the store; `nil` for an object never saved.
    var snapshot: Row?

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
        if let row = creation.row {
            storage = row
            snapshot = row
            isFault = false
        } else {
            storage = Row(emptyFor: creation.layout)
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

    // MARK: Lifecycle, for subclasses

    /// Called once, when the object is first inserted into a context. Set initial values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called at the start of a save that includes the object. Changes made here are saved.
    open func willSave() {}
    /// Called after a save that included the object has landed.
    open func didSave() {}
    /// Called when the object's delete is being processed, before its delete rules run.
    open func prepareForDeletion() {}
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
    unowned let graph: ObjectGraph
    /// The stored values, when they are at hand; `nil` makes a fault (or a new object).
    let row: Row?
}
