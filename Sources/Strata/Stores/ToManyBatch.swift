import Logging
import OrderedCollections

/// One to-many relationship of the objects one read of a SQL store gave, read for all of them
/// at the first use of any (a statement per chunk of owners): Core Data's to-many relationship
/// fault, fired for the read as a whole the way a batch of faulted objects is (Core Data fires
/// each object's on its own, the N+1 its prefetching avoids).
///
/// A fetch of books thus reads no tags until one book's tags are used, and then every fetched
/// book's in one statement; a walk that never uses them never reads them.
///
/// The store reads through the generation the rows came from while it lasts, and through the
/// store's current state after (as Core Data's faults read the store as it is when they fire,
/// for a context not pinned to a query generation); so a fault never keeps a generation's
/// read transaction open. A read that fails says why in the log, reads as no targets for that
/// use, and is tried again at the next.
package final class ToManyBatch: Sendable {
    private struct State {
        /// The objects whose targets a read asks for, set once their rows are decoded.
        var owners: [Int64] = []
        /// Each owner's targets, once read (an owner without targets has none here).
        var read: [Int64: OrderedSet<ManagedObjectID>]?
    }

    private let readTargets: @Sendable ([Int64]) throws -> [Int64: OrderedSet<ManagedObjectID>]
    private let state = ThreadLocked(State())
    private static let logger = Logger(label: "strata.relationship-fault")

    /// A batch whose targets `readTargets` reads for the owners it is given: each owner's
    /// targets in order, owners without targets left out.
    package init(readTargets: @escaping @Sendable ([Int64]) throws -> [Int64: OrderedSet<ManagedObjectID>]) {
        self.readTargets = readTargets
    }

    /// `owner`'s targets, unread: what its row holds until they are used.
    package func fault(for owner: Int64) -> RelationshipTargets {
        .unread(RelationshipFault(batch: self, owner: owner))
    }

    /// Names the objects the batch reads for: those whose rows hold its faults, once the read
    /// that made them has them all (no fault can fire before its row is handed on).
    package func setOwners(_ owners: [Int64]) {
        state.withLock { $0.owners = owners }
    }

    /// `owner`'s targets, reading every owner's at the first call; when the store fails, none
    /// (the failure logged).
    func targets(of owner: Int64) -> OrderedSet<ManagedObjectID> {
        do {
            return try checkedTargets(of: owner)
        } catch {
            Self.logger.error("cannot read a to-many relationship from its store", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// `owner`'s targets, reading every owner's at the first call, or the store's error. The
    /// lock is held while the store is asked: faults of one batch firing at once read it once.
    func checkedTargets(of owner: Int64) throws -> OrderedSet<ManagedObjectID> {
        try state.withLock { state in
            if let read = state.read { return read[owner] ?? [] }
            let read = try readTargets(state.owners)
            state.read = read
            return read[owner] ?? []
        }
    }

    /// `owner`'s targets when the batch was read, `nil` before.
    func targetsIfRead(of owner: Int64) -> OrderedSet<ManagedObjectID>? {
        state.withLock { state in state.read.map { $0[owner] ?? [] } }
    }
}
