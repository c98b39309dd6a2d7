import Logging
import OrderedCollections

/// A relationship's targets that its store has not been asked for yet — Core Data's
/// relationship fault. Rows hold one in ``RelationshipTargets/unread(_:)``; it is read at the
/// relationship's first use (read, changed, compared with changed targets, saved), once: rows
/// are copied from the generation's cache into every context that reads them, and the copies
/// share the fault and what it read.
///
/// Two kinds:
/// - one relationship of one object: an incremental store's node that leaves a relationship out
///   (``IncrementalStoreNode/relatedObjectIDs``), read through
///   ``IncrementalStore/newValue(forRelationship:forObjectWith:with:)``;
/// - one object's share of a ``ToManyBatch``: the SQL stores' to-many relationships, read for
///   every object of the read that made the row at once.
///
/// A store that fails to answer says why in the log, and the relationship reads as empty for
/// that use; the next use asks again (as a fault whose row cannot be read stays a fault). Such
/// a use is remembered (``failedUse``): a change made from the empty reading would overwrite
/// targets nobody saw, so a save of a change to the relationship fails instead (Core Data
/// raises at the use itself: it "could not fulfill a fault").
package final class RelationshipFault: Sendable {
    private enum Source: Sendable {
        case single(SingleRead)
        case batch(ToManyBatch, owner: Int64)
    }

    // The failed use is kept where the targets are (the single read's lock, the batch's), not
    // under a lock of the fault's own: a fault is made for every to-many of every row a read
    // decodes, and a lock each was two allocations more per row.
    private let source: Source
    private static let logger = Logger(label: "strata.relationship-fault")

    /// A fault that `readTargets` fulfils, for a to-many or a to-one relationship.
    package init(isToMany: Bool, readTargets: @escaping @Sendable () throws -> [ManagedObjectID]) {
        source = .single(SingleRead(isToMany: isToMany, readTargets: readTargets))
    }

    /// `owner`'s share of `batch`.
    init(batch: ToManyBatch, owner: Int64) {
        source = .batch(batch, owner: owner)
    }

    /// The targets, as `.toOne` or `.toMany` (never `.unread`), read at the first call; none
    /// when the store fails to give them (logged, and kept as ``failedUse``).
    var targets: RelationshipTargets {
        do {
            return try checkedTargets()
        } catch {
            Self.logger.error("cannot read a relationship from its store", metadata: ["error": "\(error)"])
            switch source {
            case .single(let read):
                read.state.withLock { state in state.failedUse = state.failedUse ?? error }
                return read.isToMany ? .toMany([]) : .toOne(nil)
            case .batch(let batch, let owner):
                batch.recordFailedUse(error, of: owner)
                return .toMany([])
            }
        }
    }

    /// The store's error at the first use that read the relationship as empty because the
    /// store failed to give it; `nil` while every use got the targets.
    package var failedUse: (any Error)? {
        switch source {
        case .single(let read): read.state.withLock { $0.failedUse }
        case .batch(let batch, let owner): batch.failedUse(of: owner)
        }
    }

    /// The targets as ``targets`` gives them, or the store's error where it fails to read them
    /// (``ManagedObject/value(forKey:)`` throws it).
    func checkedTargets() throws -> RelationshipTargets {
        switch source {
        case .single(let read): try read.checkedTargets()
        case .batch(let batch, let owner): .toMany(try batch.checkedTargets(of: owner))
        }
    }

    /// The targets when they were read already, `nil` when reading them would ask the store:
    /// what a look that must read nothing takes.
    var targetsIfRead: RelationshipTargets? {
        switch source {
        case .single(let read): read.state.withLock { $0.answer }
        case .batch(let batch, let owner): batch.targetsIfRead(of: owner).map(RelationshipTargets.toMany)
        }
    }

    /// One relationship of one object, read by a closure; what was read is kept under the lock,
    /// which is held while the store is asked, so that it is asked once.
    private final class SingleRead: Sendable {
        struct State {
            var answer: RelationshipTargets?
            /// The store's error at the first use that read the relationship as empty.
            var failedUse: (any Error)?
        }

        let isToMany: Bool
        let readTargets: @Sendable () throws -> [ManagedObjectID]
        let state = ThreadLocked(State())

        init(isToMany: Bool, readTargets: @escaping @Sendable () throws -> [ManagedObjectID]) {
            self.isToMany = isToMany
            self.readTargets = readTargets
        }

        func checkedTargets() throws -> RelationshipTargets {
            try state.withLock { state in
                if let answer = state.answer { return answer }
                let ids = try readTargets()
                let read: RelationshipTargets = isToMany ? .toMany(OrderedSet(ids)) : .toOne(ids.first)
                state.answer = read
                return read
            }
        }
    }
}
