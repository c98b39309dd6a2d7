import Foundation

/// What an optional ``Relationship`` property may hold: a managed object (a to-one relationship,
/// `Author?`), or Core Data's untyped collections for a to-many one — `NSSet?` and
/// `NSOrderedSet?`, what Xcode's generated `@NSManaged` properties declare:
///
/// ```swift
/// @Relationship var books: NSSet?            // @NSManaged public var books: NSSet?
/// @Relationship var chapters: NSOrderedSet?  // @NSManaged public var chapters: NSOrderedSet?
/// ```
///
/// As Core Data's, a to-many property of this form reads as a collection (empty when there are
/// no objects), never `nil`; setting `nil` empties the relationship. (The requirements are
/// static, so that no member is added to every managed object.)
public protocol OptionalRelationshipValue {
    /// Whether a value of this type can hold `objects` (a to-one: none, or one of this class).
    static func canHold(_ objects: [ManagedObject]) -> Bool
    /// The value holding `objects`, when ``canHold(_:)``: `nil` for none of a to-one relationship.
    static func relationshipValue(holding objects: [ManagedObject]) -> Self?
    /// The objects `value` holds.
    static func relationshipObjects(in value: Self) -> [ManagedObject]
}

extension ManagedObject: OptionalRelationshipValue {
    public static func canHold(_ objects: [ManagedObject]) -> Bool {
        objects.first.map { $0 is Self } ?? true
    }

    public static func relationshipValue(holding objects: [ManagedObject]) -> Self? {
        objects.first as? Self
    }

    public static func relationshipObjects(in value: ManagedObject) -> [ManagedObject] { [value] }
}

extension NSSet: OptionalRelationshipValue {
    /// A set holds any managed objects; of the set classes, `NSSet` and `NSMutableSet` can be made.
    public static func canHold(_ objects: [ManagedObject]) -> Bool {
        self == NSSet.self || self == NSMutableSet.self
    }

    public static func relationshipValue(holding objects: [ManagedObject]) -> Self? {
        (self == NSMutableSet.self ? NSMutableSet(array: objects) : NSSet(array: objects)) as? Self
    }

    /// The objects of the set; anything in it that is not a managed object stops the program,
    /// as Core Data raises for it.
    public static func relationshipObjects(in value: NSSet) -> [ManagedObject] {
        OptionalRelationshipValues.managedObjects(value.allObjects, in: Self.self)
    }
}

extension NSOrderedSet: OptionalRelationshipValue {
    /// An ordered set holds any managed objects; of its classes, `NSOrderedSet` and
    /// `NSMutableOrderedSet` can be made.
    public static func canHold(_ objects: [ManagedObject]) -> Bool {
        self == NSOrderedSet.self || self == NSMutableOrderedSet.self
    }

    public static func relationshipValue(holding objects: [ManagedObject]) -> Self? {
        (self == NSMutableOrderedSet.self ? NSMutableOrderedSet(array: objects) : NSOrderedSet(array: objects)) as? Self
    }

    /// The objects of the set, in order; anything in it that is not a managed object stops the
    /// program, as Core Data raises for it.
    public static func relationshipObjects(in value: NSOrderedSet) -> [ManagedObject] {
        OptionalRelationshipValues.managedObjects(value.array, in: Self.self)
    }
}

/// What the untyped collections share.
enum OptionalRelationshipValues {
    static func managedObjects(_ members: [Any], in type: Any.Type) -> [ManagedObject] {
        members.map { member in
            guard let object = member as? ManagedObject else {
                preconditionFailure("a relationship's \(type) holds \(Swift.type(of: member)), which is not a managed object")
            }
            return object
        }
    }
}
