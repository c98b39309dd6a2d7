/// A to-many relationship's objects, changed in place: what Core Data's
/// `mutableSetValue(forKey:)` returns, and what Xcode's generated accessors
/// (`addToBooks(_:)`, `removeFromBooks(_:)`) are made of.
///
/// Each change goes to the object at once, as a set of the whole relationship would
/// (its inverse kept in step, ``ManagedObject/willChangeValue(forKey:)`` and
/// ``ManagedObject/didChangeValue(forKey:)`` told). Port a generated accessor by giving it
/// this body:
///
/// ```swift
/// extension Author {
///     func addToBooks(_ value: Book) { mutableSetValue(forKey: "books").add(value) }
///     func removeFromBooks(_ value: Book) { mutableSetValue(forKey: "books").remove(value) }
///     func addToBooks(_ values: Set<Book>) { mutableSetValue(forKey: "books").union(values) }
/// }
/// ```
///
/// An object of another context or of an entity the relationship does not take is a
/// programmer error, as Core Data's exception, and stops the program with the reason.
public final class MutableRelationshipSet: Sequence {
    let owner: ManagedObject
    let key: String
    let index: Int

    init(owner: ManagedObject, key: String, index: Int) {
        self.owner = owner
        self.key = key
        self.index = index
    }

    /// The objects, as they are now.
    public var allObjects: [ManagedObject] { owner.relatedObjects(at: index) }
    public var count: Int { allObjects.count }
    public func contains(_ object: ManagedObject) -> Bool { allObjects.contains { $0 === object } }
    public func makeIterator() -> IndexingIterator<[ManagedObject]> { allObjects.makeIterator() }

    /// Adds an object (nothing when it is there already).
    public func add(_ object: ManagedObject) { addObjects(from: [object]) }

    /// Adds objects.
    public func addObjects(from objects: [ManagedObject]) {
        let current = allObjects
        let new = objects.filter { object in !current.contains { $0 === object } }
        guard !new.isEmpty else { return }
        replace(with: current + new)
    }

    /// Adds the objects of a set, typed or not.
    public func union<S: Sequence>(_ objects: S) where S.Element: ManagedObject { addObjects(from: objects.map { $0 }) }

    /// Removes an object (nothing when it is not there).
    public func remove(_ object: ManagedObject) { removeObjects(in: [object]) }

    /// Removes objects.
    public func removeObjects(in objects: [ManagedObject]) {
        let current = allObjects
        let kept = current.filter { object in !objects.contains { $0 === object } }
        guard kept.count != current.count else { return }
        replace(with: kept)
    }

    /// Removes the objects of a set, typed or not.
    public func minus<S: Sequence>(_ objects: S) where S.Element: ManagedObject { removeObjects(in: objects.map { $0 }) }

    /// Removes every object.
    public func removeAllObjects() { replace(with: []) }

    func replace(with objects: [ManagedObject]) {
        owner.changeRelatedObjects(objects, at: index, key: key)
    }
}

extension ManagedObject {
    /// A to-many relationship's objects, to change in place: Core Data's
    /// `mutableSetValue(forKey:)` (see ``MutableRelationshipSet``).
    ///
    /// - Throws: ``ValidationError`` `.unknownKey` for a key the entity does not have,
    ///   `.wrongType` for one that is not a to-many relationship.
    public func mutableSetValue(forKey key: String) throws -> MutableRelationshipSet {
        MutableRelationshipSet(owner: self, key: key, index: try toManyIndex(forKey: key, ordered: false))
    }

    /// An ordered to-many relationship's objects, to change in place: Core Data's
    /// `mutableOrderedSetValue(forKey:)` (see ``MutableOrderedRelationshipSet``).
    ///
    /// - Throws: ``ValidationError`` `.unknownKey` for a key the entity does not have,
    ///   `.wrongType` for one that is not an ordered to-many relationship.
    public func mutableOrderedSetValue(forKey key: String) throws -> MutableOrderedRelationshipSet {
        MutableOrderedRelationshipSet(owner: self, key: key, index: try toManyIndex(forKey: key, ordered: true))
    }

    private func toManyIndex(forKey key: String, ordered: Bool) throws -> Int {
        guard case .relationship(let index) = try slot(forKey: key), layout.relationships[index].isToMany,
            !ordered || layout.relationships[index].isOrdered
        else {
            throw ValidationError(
                .wrongType, entity: entity.name, key: key, objectID: objectID,
                ordered ? "the property is not an ordered to-many relationship" : "the property is not a to-many relationship")
        }
        return index
    }

    /// Sets a to-many relationship's objects for a mutable set, telling the change
    /// notifications; a wrong object stops the program (see ``MutableRelationshipSet``).
    func changeRelatedObjects(_ objects: [ManagedObject], at index: Int, key: String) {
        willChangeValue(forKey: key)
        defer { didChangeValue(forKey: key) }
        do {
            try setRelatedObjects(objects, at: index)
        } catch {
            preconditionFailure("\(entity.name).\(key): \(error)")
        }
    }
}
