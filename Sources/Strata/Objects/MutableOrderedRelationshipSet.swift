import Foundation

/// An ordered to-many relationship's objects, changed in place: what Core Data's
/// `mutableOrderedSetValue(forKey:)` returns, and what Xcode's generated accessors of an
/// ordered relationship (`insertIntoChapters(_:at:)`, `removeFromChapters(at:)`,
/// `replaceChapters(at:with:)`) are made of:
///
/// ```swift
/// extension Book {
///     func insertIntoChapters(_ value: Chapter, at index: Int) {
///         mutableOrderedSetValue(forKey: "chapters").insert(value, at: index)
///     }
/// }
/// ```
///
/// Each change goes to the object at once, as ``MutableRelationshipSet``'s do, and the same
/// programmer errors stop the program; an index out of range too, as in Core Data.
public final class MutableOrderedRelationshipSet: Sequence {
    private let elements: MutableRelationshipSet

    init(owner: ManagedObject, key: String, index: Int) {
        elements = MutableRelationshipSet(owner: owner, key: key, index: index)
    }

    /// The objects, in order.
    public var array: [ManagedObject] { elements.allObjects }
    public var count: Int { array.count }
    public func contains(_ object: ManagedObject) -> Bool { elements.contains(object) }
    public func makeIterator() -> IndexingIterator<[ManagedObject]> { array.makeIterator() }
    public func object(at index: Int) -> ManagedObject { array[index] }
    /// The position of an object, `nil` when it is not there.
    public func index(of object: ManagedObject) -> Int? { array.firstIndex { $0 === object } }

    /// Adds an object at the end (nothing when it is there already).
    public func add(_ object: ManagedObject) { elements.add(object) }
    public func addObjects(from objects: [ManagedObject]) { elements.addObjects(from: objects) }
    public func remove(_ object: ManagedObject) { elements.remove(object) }
    public func removeObjects(in objects: [ManagedObject]) { elements.removeObjects(in: objects) }
    public func removeAllObjects() { elements.removeAllObjects() }

    /// Inserts an object at `index`; one already there moves (Core Data leaves an object that
    /// is there already where it is).
    public func insert(_ object: ManagedObject, at index: Int) {
        var objects = array
        guard !objects.contains(where: { $0 === object }) else { return }
        objects.insert(object, at: index)
        elements.replace(with: objects)
    }

    /// Removes the object at `index`.
    public func removeObject(at index: Int) {
        var objects = array
        objects.remove(at: index)
        elements.replace(with: objects)
    }

    /// Puts `object` in place of the one at `index`.
    public func replaceObject(at index: Int, with object: ManagedObject) {
        var objects = array
        objects[index] = object
        elements.replace(with: objects.enumerated().filter { position, element in
            position == index || element !== object
        }.map(\.element))
    }

    /// Moves the objects at `indexes` to start at `destination` (positions counted after they
    /// are taken out), as `NSMutableOrderedSet.moveObjects(at:to:)`.
    public func moveObjects(at indexes: IndexSet, to destination: Int) {
        var objects = array
        let moving = indexes.map { objects[$0] }
        for index in indexes.reversed() { objects.remove(at: index) }
        objects.insert(contentsOf: moving, at: destination)
        elements.replace(with: objects)
    }
}
