import OrderedCollections

/// A typed accessor for a relationship of a ``ManagedObject`` subclass: `Author?` for to-one,
/// `Set<Book>` for to-many, `[Chapter]` (or `OrderedSet<Chapter>`) for ordered to-many — or,
/// as Xcode generates them, `NSSet?` and `NSOrderedSet?` (``OptionalRelationshipValue``).
///
/// ```swift
/// final class Author: ManagedObject {
///     @Relationship var books: Set<Book>              // Core Data: @NSManaged var books: Set<Book>
///     @Relationship("agent") var representedBy: Agent?  // the relationship "agent"
/// }
/// ```
///
/// Without a key the relationship is the one named as the property, as `@NSManaged` names it;
/// a key names another.
///
/// Setting one side updates the inverse on the other objects. Relating objects of two
/// different contexts is a programmer error, as in Core Data.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: KeyNamingWrapper {
    /// The relationship's name in the entity; empty until first use for a wrapper declared
    /// without one (the property's name then).
    public let key: String

    /// The accessor of the relationship `key`.
    public init(_ key: String) {
        self.key = key
    }

    /// The accessor of the relationship named as the property it wraps.
    public init() {
        self.key = ""
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable: the compiler rejects every use") }
        set { fatalError("unavailable: the compiler rejects every use") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let (key, slot) = WrapperKeys.slot(of: object, storageKeyPath)
            guard let index = slot?.relationshipIndex else {
                return probed(object, key: key, wrappedKeyPath)
            }
            let objects = object.relatedObjects(at: index)
            guard let value = Value(relatedObjects: objects) else {
                preconditionFailure(
                    "\(object.entity.name).\(key) holds objects of classes \(objects.map { type(of: $0) }), "
                        + "not \(Value.self): register the class on the destination entity")
            }
            return value
        }
        set {
            let (key, slot) = WrapperKeys.slot(of: object, storageKeyPath)
            // A key the entity lacks stops the program, with the reason.
            let index = slot?.relationshipIndex ?? object.relationshipIndex(forKey: key, declaredIn: Object.self)
            object.willChangeValue(forKey: key)
            defer { object.didChangeValue(forKey: key) }
            do {
                try object.setRelatedObjects(newValue.relatedObjects, at: index)
            } catch {
                preconditionFailure("\(Object.self).\(key): \(error)")
            }
        }
    }
}

extension Relationship {
    /// The getter of a relationship the object's entity does not have: on a probe reading a key
    /// path (``KeyPathNames``), a probe of the destination for a to-one relationship (the key
    /// path goes on), no objects for a to-many one; otherwise a programmer error.
    fileprivate static func probed<Object: ManagedObject>(_ object: Object, key: String, _ keyPath: AnyKeyPath) -> Value {
        guard KeyPathNames.isProbe(object) else {
            _ = object.relationshipIndex(forKey: key, declaredIn: Object.self)  // stops the program with the reason
            preconditionFailure()
        }
        KeyPathNames.record(key, reachedBy: keyPath)
        let destination = (Value.self as? any ProbedRelationshipValue.Type).map { [KeyPathNames.probe(of: $0.probeDestination)] }
        guard let value = Value(relatedObjects: destination ?? []) else { KeyPathNames.unmodelled(keyPath) }
        return value
    }
}

/// The Swift forms of a relationship's value: `T?`, `Set<T>`, `[T]` and `OrderedSet<T>` of a
/// ``ManagedObject`` subclass `T`, and Core Data's `NSSet?` and `NSOrderedSet?`.
public protocol RelationshipValue {
    /// The value for the related objects; `nil` when they are not of the expected class.
    init?(relatedObjects: [ManagedObject])
    var relatedObjects: [ManagedObject] { get }
}

extension Optional: RelationshipValue where Wrapped: OptionalRelationshipValue {
    public init?(relatedObjects: [ManagedObject]) {
        guard Wrapped.canHold(relatedObjects) else { return nil }
        self = Wrapped.relationshipValue(holding: relatedObjects)
    }
    public var relatedObjects: [ManagedObject] { map { Wrapped.relationshipObjects(in: $0) } ?? [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public init?(relatedObjects: [ManagedObject]) {
        let objects = relatedObjects.compactMap { $0 as? Element }
        guard objects.count == relatedObjects.count else { return nil }
        self.init(objects)
    }
    public var relatedObjects: [ManagedObject] { Array(self) }
}

extension Array: RelationshipValue where Element: ManagedObject {
    public init?(relatedObjects: [ManagedObject]) {
        let objects = relatedObjects.compactMap { $0 as? Element }
        guard objects.count == relatedObjects.count else { return nil }
        self = objects
    }
    public var relatedObjects: [ManagedObject] { self }
}

extension OrderedSet: RelationshipValue where Element: ManagedObject {
    public init?(relatedObjects: [ManagedObject]) {
        guard let array = [Element](relatedObjects: relatedObjects) else { return nil }
        self.init(array)
    }
    public var relatedObjects: [ManagedObject] { Array(self) }
}

extension ManagedObject {
    func relationshipIndex(forKey key: String, declaredIn type: ManagedObject.Type) -> Int {
        guard case .relationship(let index)? = layout.slots[key] else {
            preconditionFailure(
                "\(type) declares @Relationship(\"\(key)\"), but entity \(entity.name) has no such relationship")
        }
        return index
    }
}
