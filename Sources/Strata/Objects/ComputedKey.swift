/// A key a ``ManagedObject`` subclass computes rather than stores.
///
/// Core Data's key-value coding reaches a subclass's own accessor of a key's name, so that
/// `value(forKey: "displayName")`, a predicate or a sort descriptor on `displayName` call a
/// computed property. Swift has no such runtime lookup: a subclass names its computed keys in
/// ``ManagedObject/computedKeys``, and ``ManagedObject/value(forKey:)``, ``FetchPredicate``,
/// ``FetchSortDescriptor`` and ``ValueExpression`` then reach them.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Attribute("first") var first: String
///     @Attribute("last") var last: String
///     var displayName: String { "\(first) \(last)" }
///
///     override class var computedKeys: [ComputedKey] {
///         super.computedKeys + [ComputedKey("displayName", \Person.displayName)]
///     }
/// }
/// ```
///
/// A property the entity models keeps its name: a computed key of the same name is not used.
/// A fetch whose predicate or sort descriptors name a computed key is evaluated by the context
/// on the objects (Core Data's SQLite store refuses such a fetch): the store is asked for what
/// the rest of the predicate selects, and each object considered is registered in the context
/// (a fault holding its row) so that its property can be called.
public struct ComputedKey: Sendable {
    /// The key's name, as key-value coding, predicates and sort descriptors use it.
    public let name: String
    private let compute: @Sendable (ManagedObject) throws -> Any?

    /// A key whose value is the property `keyPath` reaches.
    public init<Object: ManagedObject, Value>(_ name: String, _ keyPath: any KeyPath<Object, Value> & Sendable) {
        self.name = name
        compute = { object in (object as? Object).map { $0[keyPath: keyPath] } }
    }

    /// A key whose value `compute` gives (it may throw, and the read that asked throws it).
    public init<Object: ManagedObject>(_ name: String, of type: Object.Type, _ compute: @escaping @Sendable (Object) throws -> Any?) {
        self.name = name
        self.compute = { object in try (object as? Object).flatMap(compute) }
    }

    /// The key's value for `object`: `nil` for an absent value, however deeply optional.
    func value(of object: ManagedObject) throws -> Any? {
        guard let value = try compute(object) else { return nil }
        return Self.unwrapped(value)
    }

    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}
