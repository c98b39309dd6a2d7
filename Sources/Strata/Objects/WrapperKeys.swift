/// A property wrapper of a ``ManagedObject`` subclass that names a property of the entity:
/// ``Attribute`` and ``Relationship``. An empty key means "the name of the property it wraps".
protocol KeyNamingWrapper {
    var key: String { get }
    init(_ key: String)
}

/// The keys of wrappers declared without one (`@Attribute var title: String?`): the name of
/// the property, as Core Data's `@NSManaged var title: String?` names its attribute.
///
/// A property wrapper is not told the name of the property it wraps, and Swift on Linux has no
/// Objective-C runtime to ask; a `Mirror` of the object has it (the wrapper's storage is the
/// property's name with a leading underscore). The first time a wrapper of a class is read
/// without a key, it is told apart from the class's other wrappers by giving it a probe key for
/// the moment of one reflection, and its name is kept for the class (by its key path). Each
/// object then keeps the name in its own wrapper from its first access on, so later accesses
/// cost what a named wrapper's do.
enum WrapperKeys {
    /// The names found, by the key path of the wrapper's storage (which names the class too).
    private static let names = ThreadLocked<[AnyKeyPath: String]>([:])
    /// A key no property can have: names the wrapper being looked for during the reflection.
    private static let probe = "\u{0}strata.probe"

    /// The key of the wrapper at `storage` in `object`: its own, or the name of its property.
    static func key<Object: ManagedObject, Wrapper: KeyNamingWrapper>(
        of object: Object, _ storage: ReferenceWritableKeyPath<Object, Wrapper>
    ) -> String {
        let own = object[keyPath: storage].key
        if !own.isEmpty { return own }
        let name = names.withLock { $0[storage] } ?? propertyName(of: object, storage)
        object[keyPath: storage] = Wrapper(name)
        return name
    }

    /// The key of the wrapper at `storage` in `object`, and its slot in the object's layout
    /// (`nil` when the entity has no such property): found once per context
    /// (``WrapperSlotCache``), for an object in one.
    static func slot<Object: ManagedObject, Wrapper: KeyNamingWrapper>(
        of object: Object, _ storage: ReferenceWritableKeyPath<Object, Wrapper>
    ) -> (key: String, slot: EntityLayout.Slot?) {
        let graph = object.graph
        if let found = graph?.wrapperSlots.entry(for: storage, in: object.layout) { return (found.key, found.slot) }
        let key = key(of: object, storage)
        let slot = object.layout.slots[key]
        if let graph, let slot { graph.wrapperSlots.keep(slot, key: key, for: storage, in: object.layout) }
        return (key, slot)
    }

    private static func propertyName<Object: ManagedObject, Wrapper: KeyNamingWrapper>(
        of object: Object, _ storage: ReferenceWritableKeyPath<Object, Wrapper>
    ) -> String {
        let original = object[keyPath: storage]
        object[keyPath: storage] = Wrapper(probe)
        defer { object[keyPath: storage] = original }
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let wrapper = child.value as? any KeyNamingWrapper, wrapper.key == probe, let label = child.label else { continue }
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                names.withLock { $0[storage] = name }
                return name
            }
            mirror = current.superclassMirror
        }
        preconditionFailure("\(Object.self) declares a \(Wrapper.self) without a key that reflection cannot find: give it its key")
    }
}
