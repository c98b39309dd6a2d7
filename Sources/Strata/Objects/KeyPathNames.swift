import Foundation

/// The key a Swift key path of a ``ManagedObject`` subclass reaches: `\Book.title` is
/// `"title"`, `\Book.author?.name` is `"author.name"`. What Core Data reads from an `@objc`
/// key path (`NSSortDescriptor(keyPath: \Book.title, ascending: true)`), found without the
/// Objective-C runtime.
///
/// A Swift key path does not tell the name of the property it reaches on Linux. The first time
/// one is asked for, it is read once on a *probe*: an object of the class whose layout has no
/// slots, on which every ``Attribute`` and ``Relationship`` accessor, finding no slot, records
/// its key and gives a stand-in value (a to-one relationship gives a probe of its destination
/// class, so that the key path goes on). The name is kept for the key path from then on.
/// Accessors of real objects never come here: they find their slot.
enum KeyPathNames {
    /// What a key path that reaches no modelled property, or reaches it through code of its
    /// own, is: a programmer error, as Core Data raises for a key path that is not `@objc`.
    static func unmodelled(_ keyPath: AnyKeyPath) -> Never {
        preconditionFailure(
            "\(keyPath) is not a key path of @Attribute and @Relationship properties: name the key (FetchSortDescriptor(key:))")
    }

    private static let names = ThreadLocked<[AnyKeyPath: String]>([:])
    /// One probe at a time, so that the accessors it runs record into `steps`.
    private static let probing = NSLock()
    /// The keys the running probe's accessors recorded, with the key paths they were reached by.
    private static let steps = ThreadLocked<[(key: String, keyPath: AnyKeyPath)]>([])

    /// The layout of probes: no slots, so that accessors take the probe's path.
    static let probeLayout = EntityLayout(
        entity: EntityDescription(name: "\u{0}strata.keyPathProbe"), entities: [:])

    /// The key `keyPath` reaches (keys joined by dots through to-one relationships).
    static func key<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        if let known = names.withLock({ $0[keyPath] }) { return known }
        probing.lock()
        defer { probing.unlock() }
        steps.withLock { $0 = [] }
        guard let root = probe(of: Root.self) as? Root else { unmodelled(keyPath) }
        _ = root[keyPath: keyPath]
        let recorded = steps.withLock { steps in
            defer { steps = [] }
            return steps
        }
        // A key path of one property is the accessor's own; one that reads a property through
        // code (a computed property) reaches it by another key path.
        guard let first = recorded.first, recorded.count > 1 || first.keyPath == keyPath else { unmodelled(keyPath) }
        let key = recorded.map(\.key).joined(separator: ".")
        names.withLock { $0[keyPath] = key }
        return key
    }

    static func isProbe(_ object: ManagedObject) -> Bool {
        object.layout === probeLayout
    }

    /// For an accessor of a probe: records the key it stands for.
    static func record(_ key: String, reachedBy keyPath: AnyKeyPath) {
        steps.withLock { $0.append((key, keyPath)) }
    }

    static func probe(of type: ManagedObject.Type) -> ManagedObject {
        type.init(
            ManagedObjectCreation(
                layout: probeLayout, objectID: .temporary(in: probeLayout.temporaryIDSpace), graph: nil, stored: nil))
    }

    /// A value of `Value` for a probe's attribute accessor to give: none for an optional,
    /// else the first stand-in of a stored type that makes one.
    static func standIn<Value: AttributeValueConvertible>(_: Value.Type) -> Value? {
        if let absent = Value.fromAttributeValue(nil) { return absent }
        let candidates: [AttributeValue] = [
            .string(""), .integer64(0), .double(0), .boolean(false), .date(Date(timeIntervalSinceReferenceDate: 0)),
            .decimal(0), .float(0), .integer32(0), .integer16(0), .uuid(UUID()), .binaryData(Data()),
            .uri(URL(fileURLWithPath: "/")),
        ]
        return candidates.lazy.compactMap { Value.fromAttributeValue($0) }.first
    }
}

/// The relationship values whose destination a probe can stand in for: to-one.
protocol ProbedRelationshipValue {
    static var probeDestination: ManagedObject.Type { get }
}

extension Optional: ProbedRelationshipValue where Wrapped: ManagedObject {
    static var probeDestination: ManagedObject.Type { Wrapped.self }
}
