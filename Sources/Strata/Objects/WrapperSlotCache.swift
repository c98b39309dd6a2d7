/// Where a context found the properties its objects' wrappers (``Attribute``, ``Relationship``)
/// name: the key and the slot of each, by the wrapper's storage key path and the object's
/// entity layout (a class shared by several entities has a layout for each).
///
/// Without it, every access to a wrapped property projected its key path to read the wrapper's
/// key, then hashed the key to find its slot among the layout's: a third of an attribute
/// setter's time when a context inserts objects, paid at each of every object's properties. A
/// key is therefore read once per context, class and declaration: a wrapper's key is its
/// declaration's, the same in every object of its class (`@Attribute("title")`, or the name of
/// the property it wraps).
///
/// A context is used from one thread at a time (its objects too), so the cache takes no lock.
struct WrapperSlotCache {
    struct Entry {
        /// Held so that its identity, the cache's key, names no other key path while kept.
        let keyPath: AnyKeyPath
        let key: String
        let slot: EntityLayout.Slot
    }

    private struct Key: Hashable {
        let keyPath: ObjectIdentifier
        let layout: ObjectIdentifier
    }

    /// A generic class's key paths may be made anew at each access: past this many, the cache
    /// keeps no more (each access then finds its slot as without it).
    static let capacity = 1_024

    private var entries: [Key: Entry] = [:]

    func entry(for keyPath: AnyKeyPath, in layout: EntityLayout) -> Entry? {
        entries[Key(keyPath: ObjectIdentifier(keyPath), layout: ObjectIdentifier(layout))]
    }

    mutating func keep(_ slot: EntityLayout.Slot, key: String, for keyPath: AnyKeyPath, in layout: EntityLayout) {
        guard entries.count < Self.capacity else { return }
        entries[Key(keyPath: ObjectIdentifier(keyPath), layout: ObjectIdentifier(layout))] = Entry(keyPath: keyPath, key: key, slot: slot)
    }
}
