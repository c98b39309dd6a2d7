import Foundation

/// What the IDs of one entity's objects in one store share: the store's identifier (`nil` for
/// temporary IDs) and the entity's name.
///
/// Interned: one instance per pair for the life of the process, so that two spaces are equal
/// exactly when they are the same instance, and a ``ManagedObjectID`` is one reference and a
/// number (16 bytes) instead of two strings and a number (41). IDs are the most copied values
/// in Strata (every relationship target, identity-map key and change-set entry), and their
/// size showed in every workload. The table only grows, by one entry per store and entity a
/// process ever sees.
package final class ObjectIDSpace: Sendable, Hashable {
    package let store: String?
    package let entityName: String

    private init(store: String?, entityName: String) {
        self.store = store
        self.entityName = entityName
    }

    /// The one space of `entityName` in `store`.
    package static func make(store: String?, entityName: String) -> ObjectIDSpace {
        interned.space(store: store, entityName: entityName) { ObjectIDSpace(store: store, entityName: entityName) }
    }

    package static func == (lhs: ObjectIDSpace, rhs: ObjectIDSpace) -> Bool { lhs === rhs }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    private static let interned = InternTable()
}

/// The table of interned spaces, behind an `NSLock` rather than `Synchronization.Mutex`:
/// ThreadSanitizer, which CI runs the concurrency suites under, understands the first and not
/// the second, and would report the table's accesses from several contexts' queues as races.
///
/// `@unchecked Sendable` is safe: `spaces` is only read or written inside `lock`.
private final class InternTable: @unchecked Sendable {
    private struct Pair: Hashable {
        let store: String?
        let entityName: String
    }

    private let lock = NSLock()
    private var spaces: [Pair: ObjectIDSpace] = [:]

    func space(store: String?, entityName: String, make: () -> ObjectIDSpace) -> ObjectIDSpace {
        lock.lock()
        defer { lock.unlock() }
        let pair = Pair(store: store, entityName: entityName)
        if let space = spaces[pair] { return space }
        let space = make()
        spaces[pair] = space
        return space
    }
}
