import Logging
import OrderedCollections

/// A relationship's targets that its store has not been asked for yet — Core Data's
/// relationship fault. An incremental store's node may leave a relationship out
/// (``IncrementalStoreNode/relatedObjectIDs``); the row it becomes then holds one of these, and
/// ``IncrementalStore/newValue(forRelationship:forObjectWith:with:)`` is asked when the
/// relationship is first used (read, changed, compared with changed targets, saved), once: rows
/// are copied from the generation's cache into every context that reads them, and the copies
/// share the fault and what it read.
///
/// A store that fails to answer says why in the log, and the relationship reads as empty for
/// that use; the next use asks again (as a fault whose row cannot be read stays a fault).
package final class RelationshipFault: Sendable {
    private let isToMany: Bool
    private let readTargets: @Sendable () throws -> [ManagedObjectID]
    /// What was read; the lock is held while the store is asked, so that it is asked once.
    private let answer = ThreadLocked<RelationshipTargets?>(nil)
    private static let logger = Logger(label: "strata.relationship-fault")

    /// A fault that `readTargets` fulfils, for a to-many or a to-one relationship.
    package init(isToMany: Bool, readTargets: @escaping @Sendable () throws -> [ManagedObjectID]) {
        self.isToMany = isToMany
        self.readTargets = readTargets
    }

    /// The targets, as `.toOne` or `.toMany` (never `.unread`), read at the first call.
    var targets: RelationshipTargets {
        answer.withLock { answer in
            if let answer { return answer }
            do {
                let ids = try readTargets()
                let read: RelationshipTargets = isToMany ? .toMany(OrderedSet(ids)) : .toOne(ids.first)
                answer = read
                return read
            } catch {
                Self.logger.error("cannot read a relationship from its store", metadata: ["error": "\(error)"])
                return isToMany ? .toMany([]) : .toOne(nil)
            }
        }
    }
}
