import Foundation
import Synchronization

/// The identity of a managed object: `Sendable`, so it can cross between contexts and tasks
/// where the object itself cannot.
///
/// A newly inserted object has a temporary ID until its context saves it; from then on its
/// ID is permanent: its store's identifier, its entity, and the reference number the store
/// gave it, which is never reused. ``uriRepresentation()`` writes a permanent ID as
/// `x-coredata://<store UUID>/<Entity>/p<reference>`; hand that URI to
/// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` to get the ID back.
public struct ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    package enum Key: Sendable, Hashable {
        case temporary(UInt64)
        case permanent(store: String, reference: Int64)
    }

    /// The store and entity: shared by the IDs of all objects of an entity in a store.
    package let space: ObjectIDSpace
    /// The reference number of a permanent ID; the bit pattern of a temporary ID's number.
    private let number: Int64

    /// The name of the object's entity (the concrete one, not an ancestor).
    public var entityName: String { space.entityName }

    /// The ID's store and number, as an enum to match on.
    package var key: Key {
        if let store = space.store { return .permanent(store: store, reference: number) }
        return .temporary(UInt64(bitPattern: number))
    }

    package init(entityName: String, key: Key) {
        switch key {
        case .temporary(let number):
            self.init(space: .make(store: nil, entityName: entityName), number: Int64(bitPattern: number))
        case .permanent(let store, let reference):
            self.init(space: .make(store: store, entityName: entityName), number: reference)
        }
    }

    /// An ID in a space already at hand: the way to make IDs by the million, without a trip
    /// through the table of spaces for each.
    package init(space: ObjectIDSpace, number: Int64) {
        self.space = space
        self.number = number
    }

    /// A new temporary ID. Its number comes from a counter shared by the process, not from a
    /// fresh UUID: on Linux every `UUID()` opens and reads `/dev/urandom`, which was half the
    /// time of inserting objects. A temporary ID is never stored, so process-wide is unique
    /// enough; its URI adds the process's own UUID, as Core Data's `t<UUID><number>` URIs do.
    ///
    /// - Parameter space: the entity's space of temporary IDs (its layout keeps it).
    package static func temporary(in space: ObjectIDSpace) -> ManagedObjectID {
        ManagedObjectID(space: space, number: Int64(bitPattern: temporaryNumbers.add(1, ordering: .relaxed).newValue))
    }

    private static let temporaryNumbers = Atomic<UInt64>(0)
    private static let processIdentifier = UUID().uuidString

    /// The number, whatever the kind of ID: with ``space``, all an ID is (for columns that store
    /// IDs as a space and a number).
    var number64: Int64 { number }

    /// A temporary ID's number, unique in the process; `nil` for a permanent ID.
    var temporaryNumber: UInt64? { space.store == nil ? UInt64(bitPattern: number) : nil }

    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool { space.store == nil }

    /// The identifier of the store that holds the object; `nil` for a temporary ID.
    public var persistentStoreIdentifier: String? { space.store }

    /// The number the store gave the object, unique within its entity hierarchy and store;
    /// `nil` for a temporary ID.
    public var referenceNumber: Int64? { space.store == nil ? nil : number }

    /// A URI that names the object, as Core Data gives it: `x-coredata://<store UUID>/<Entity>/p<reference>`
    /// for a saved object (in a SQLite store Core Data wrote, the reference is the row's `Z_PK`, so
    /// a URI an app stored names the same object here), `x-coredata:///<Entity>/t<process UUID>-<number>`
    /// for a temporary one (which no coordinator resolves). URIs with Strata's earlier scheme,
    /// `x-strata://`, still resolve.
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

    /// Whether a store identifier can be the host of object URIs: ASCII letters, digits and
    /// `-`, as a UUID's text is, at most 64 of them. A store whose identifier is not (a damaged
    /// file) is refused when it is added, before any URI is built from it.
    package static func isValidStoreIdentifier(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.utf8.count <= 64
            && identifier.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    /// The permanent ID of the object of `entity` with `reference` in the store `store`.
    package static func make(store: String, entity: String, reference: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity, key: .permanent(store: store, reference: reference))
    }

    /// Parses a permanent object URI (`x-coredata://<store>/<Entity>/p<reference>`, or the
    /// `x-strata://` form Strata handed out before), without checking that its store or entity
    /// exist; `nil` when it is malformed.
    init?(uri: URL) {
        guard uri.scheme == Self.scheme || uri.scheme == Self.earlierScheme, let store = uri.host, !store.isEmpty else { return nil }
        let components = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard components.count == 2, components[1].first == "p",
            let reference = Int64(components[1].dropFirst()), reference > 0,
            let entity = String(components[0]).removingPercentEncoding, !entity.isEmpty
        else { return nil }
        self.init(entityName: entity, key: .permanent(store: store, reference: reference))
    }

    /// Hashes the number and the space's identity: spaces are interned, so that is the same
    /// as hashing the store and entity, without reading their strings.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(number)
        hasher.combine(space)
    }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.number == rhs.number && lhs.space === rhs.space
    }

    /// The URI scheme of object URIs: Core Data's.
    public static let scheme = "x-coredata"
    /// The scheme of the object URIs Strata handed out before it used Core Data's; they resolve.
    public static let earlierScheme = "x-strata"

    public var description: String { uriRepresentation().absoluteString }
}
