import Foundation
import Logging
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// A save's batched updates and deletes go to PostgreSQL unchecked on the first try (counted,
/// not returning each key: ``PostgresRelationalConnection/checksWrittenKeys``): an object
/// another save changed or deleted must still be the conflict of that object alone, as the
/// optimistic check of each row reports it (Core Data's `NSManagedObjectMergeError` names the
/// objects that conflicted, not the whole save).
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresBatchedConflictTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Card") {
            AttributeDescription("title", .string)
            AttributeDescription("points", .integer64, defaultValue: 0)
        }
    }

    /// A new store with `count` saved cards, and their IDs in order.
    static func store(count: Int) async throws -> (PersistentStoreCoordinator, [ManagedObjectID]) {
        let url = try await PostgresTestServer.newStoreURL()
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        let ids = try await backgroundContext(coordinator).perform { context in
            let cards = try (0..<count).map { index in
                let card = try context.insertNewObject(forEntityName: "Card")
                try card.setValue("card \(index)", forKey: "title")
                return card
            }
            try context.save()
            return cards.map(\.objectID)
        }
        return (coordinator, ids)
    }

    @Test(arguments: ["update", "delete"])
    func anObjectAnotherSaveChangedIsTheOnlyConflict(_ change: String) async throws {
        let (coordinator, ids) = try await Self.store(count: 5)
        let mine = backgroundContext(coordinator)
        // This context reads every card, then another context changes the third.
        try await mine.perform { context in
            for id in ids { _ = try context.existingObject(with: id).value(forKey: "title") }
        }
        try await backgroundContext(coordinator).perform { context in
            try context.existingObject(with: ids[2]).setValue(Int64(7), forKey: "points")
            try context.save()
        }
        let error = await #expect(throws: PersistenceError.self) {
            try await mine.perform { context in
                for id in ids {
                    let card = try context.existingObject(with: id)
                    if change == "update" { try card.setValue(Int64(1), forKey: "points") } else { context.delete(card) }
                }
                try context.save()
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.objectIDs == [ids[2]])
        // Nothing of the failed save was kept: every card as the other save left it.
        let points = try await backgroundContext(coordinator).perform { context in
            try ids.map { try context.existingObject(with: $0).value(forKey: "points") as? Int64 }
        }
        #expect(points == [0, 0, 7, 0, 0])
    }

    /// Without the check, a batch that misses a row throws for the save to try again; with it,
    /// the statement reports the missed object (the per-row statement's contract).
    @Test func anUncheckedUpdateThatMissesARowThrows() async throws {
        let (coordinator, ids) = try await Self.store(count: 3)
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        for checks in [false, true] {
            let outcome = Result {
                try store.pool.withConnection { connection in
                    // Rolled back, so that both runs start from the same versions.
                    try connection.run("BEGIN", logger: Logger(label: "test"))
                    defer { _ = try? connection.run("ROLLBACK", logger: Logger(label: "test")) }
                    let session = store.relationalSession(connection, checksWrittenKeys: checks)
                    var batch = RelationalWriteBatch(.update(columns: ["Z_OPT", "ZPOINTS"]), table: "ZCARD", rowSQL: "")
                    for (id, version) in zip(ids, [1, 99, 1] as [Int64]) {
                        batch.rows.append(([.integer(version + 1), .integer(5), .integer(id.referenceNumber ?? 0), .integer(version)], id))
                    }
                    try session.write(batch)
                    return try session.finishWrites()
                }
            }
            if checks {
                #expect(try outcome.get() == [ids[1]])
            } else {
                #expect(throws: PostgresRelationalConnection.UncheckedWriteMissedRows.self) { try outcome.get() }
            }
        }
    }
}
