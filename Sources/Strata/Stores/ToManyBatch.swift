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
/// read transaction open. A read that fails as a whole (the database away) says why in the log,
/// reads as no targets for that use, and is tried again at the next; an owner whose own targets
/// could not be read (``Read/failures``) fails at each use from the one read, the other owners
/// keep theirs.
package final class ToManyBatch: Sendable {
    /// What a read of the batch found: each owner's targets in order (an owner without targets
    /// has none here), and the owners whose targets could not be read (a damaged row among
    /// them), with why — only those fail, not the whole batch.
    package struct Read: Sendable {
        package var targets: [Int64: OrderedSet<ManagedObjectID>] = [:]
        package var failures: [Int64: any Error] = [:]

        package init() {}
    }

    private struct State {
        /// The objects whose targets a read asks for, set once their rows are decoded.
        var owners: [Int64] = []
        /// What was read, once read.
        var read: Read?
        /// The store's error at the first use of each owner's targets that read them as empty
        /// (``RelationshipFault/failedUse``): every fault of one owner from this read shares
        /// it, as they share the targets.
        var failedUses: [Int64: any Error] = [:]
    }

    private let readTargets: @Sendable ([Int64]) throws -> Read
    private let state = ThreadLocked(State())

    /// A batch whose targets `readTargets` reads for the owners it is given.
    package init(readTargets: @escaping @Sendable ([Int64]) throws -> Read) {
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

    /// `owner`'s targets, reading every owner's at the first call, or the store's error. The
    /// lock is held while the store is asked: faults of one batch firing at once read it once.
    func checkedTargets(of owner: Int64) throws -> OrderedSet<ManagedObjectID> {
        let read = try state.withLock { state in
            if let read = state.read { return read }
            let read = try readTargets(state.owners)
            state.read = read
            return read
        }
        if let failure = read.failures[owner] { throw failure }
        return read.targets[owner] ?? []
    }

    /// Keeps `error` as the failed use of `owner`'s targets, unless one is kept already.
    func recordFailedUse(_ error: any Error, of owner: Int64) {
        state.withLock { state in
            if state.failedUses[owner] == nil { state.failedUses[owner] = error }
        }
    }

    func failedUse(of owner: Int64) -> (any Error)? {
        state.withLock { $0.failedUses[owner] }
    }

    /// `owner`'s targets when the batch was read, `nil` before (or when they could not be).
    func targetsIfRead(of owner: Int64) -> OrderedSet<ManagedObjectID>? {
        state.withLock { state in
            guard let read = state.read, read.failures[owner] == nil else { return nil }
            return read.targets[owner] ?? []
        }
    }
}
