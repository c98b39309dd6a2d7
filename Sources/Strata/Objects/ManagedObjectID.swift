import Foundation
import Synchronization

/// The identity of a managed object: `Sendable`, so it can cross between contexts and tasks
/// where the object itself cannot.
///
/// A newly inserted object has a temporary ID until its context saves it; from then on its
/// ID is permanent: its store's identifier, its entity, and the reference number the store
/// gave it, which is never reused. ``uriRepresentation()`` writes a permanent ID as
/// `x-strata://<store UUID>/<Entity>/p<reference>`; hand that URI to
/// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` to get the ID back.
public struct ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    package enum Key: Sendable, Hashable {
        case temporary(UInt64)
        case permanent(store: String, reference: Int64)
    }

    /// The name of the object's entity (the concrete one, not an ancestor).
    public let entityName: String
    package let key: Key

    package init(entityName: String, key: Key) {
        self.entityName = entityName
        self.key = key
    }

    /// A new temporary ID. Its number comes from a counter shared by the process, not from a
    /// fresh UUID: on Linux every `UUID()` opens and reads `/dev/urandom`, which was half the
    /// time of inserting objects. A temporary ID is never stored, so process-wide is unique
    /// enough; its URI adds the process's own UUID, as Core Data's `t<UUID><number>` URIs do.
    static func temporary(entityName: String) -> ManagedObjectID {
        ManagedObjectID(entityName: entityName, key: .temporary(temporaryNumbers.add(1, ordering: .relaxed).newValue))
    }

    private static let temporaryNumbers = Atomic<UInt64>(0)
    private static let processIdentifier = UUID().uuidString

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The identifier of the store that holds the object; `nil` for a temporary ID.
    public var persistentStoreIdentifier: String? {
        if case .permanent(let store, _) = key { return store }
        return nil
    }

    /// The number the store gave the object, unique within its entity hierarchy and store;
    /// `nil` for a temporary ID.
    public var referenceNumber: Int64? {
        if case .permanent(_, let reference) = key { return reference }
        return nil
    }

    /// A URI that names the object: `x-strata://<store UUID>/<Entity>/p<reference>` for a saved
    /// object, `x-strata:///<Entity>/t<process UUID>-<number>` for a temporary one (which no coordinator resolves).
    public func uriRepresentation() -> URL {
        let entity = entityName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? entityName
        let text = switch key {
        case .temporary(let number): "\(Self.scheme):///\(entity)/t\(Self.processIdentifier)-\(number)"
        case .permanent(let store, let reference): "\(Self.scheme)://\(store)/\(entity)/p\(reference)"
        }
        guard let url = URL(string: text) else {
            preconditionFailure("an object URI built from a UUID, a percent-encoded name and a number is a valid URL: \(text)")
        }
        return url
    }

    /// The permanent ID of the object of `entity` with `reference` in the store `store`.
    package static func make(store: String, entity: String, reference: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity, key: .permanent(store: store, reference: reference))
    }

    /// Parses a permanent object URI (`x-strata://<store>/<Entity>/p<reference>`), without
    /// checking that its store or entity exist; `nil` when it is malformed.
    init?(uri: URL) {
        guard uri.scheme == Self.scheme, let store = uri.host, !store.isEmpty else { return nil }
        let components = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard components.count == 2, components[1].first == "p",
            let reference = Int64(components[1].dropFirst()), reference > 0,
            let entity = String(components[0]).removingPercentEncoding, !entity.isEmpty
        else { return nil }
        self.init(entityName: entity, key: .permanent(store: store, reference: reference))
    }

    /// Hashes the reference and the entity, not the store's UUID: the objects of one store
    /// (what dictionaries of IDs mostly hold) share it, so hashing it would only cost time. A
    /// temporary ID's number is unique in the process by itself, so its entity is left out too.
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .temporary(let number):
            hasher.combine(number)
        case .permanent(_, let reference):
            hasher.combine(reference)
            hasher.combine(entityName)
        }
    }

    /// The URI scheme of object URIs.
    public static let scheme = "x-strata"

    public var description: String { uriRepresentation().absoluteString }
}
