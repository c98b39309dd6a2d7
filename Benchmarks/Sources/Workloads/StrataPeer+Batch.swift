import Foundation
import Strata

/// Strata's side of the batch workloads (9–11): requests that make no managed object.
extension StrataPeer {
    /// Workload 9's input: the records as the dictionaries a batch insert takes (made before the
    /// clock starts, as GRDB's peer is handed its records).
    public static func batchInsertObjects(_ records: [PersonRecord]) -> [[String: any Sendable]] {
        records.map { record in
            ["name": record.name, "email": record.email, "age": record.age, "score": record.score, "created": record.created]
        }
    }

    /// Workload 9: every record inserted by one batch insert request into a new store.
    public static func batchInsert(_ objects: [[String: any Sendable]], at url: URL) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: url.pathExtension == "sqlite" ? .sqlite : .binary, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let request = BatchInsertRequest(entityName: "Person", objects: objects)
        _ = try await context.perform { try $0.execute(request) }
    }

    /// Workload 10: one person in ten gets one more point, by a batch update request.
    public static func batchUpdateTenth(_ context: ManagedObjectContext) async throws {
        let request = BatchUpdateRequest(
            entityName: "Person", predicate: try FetchPredicate(format: "age < 10"),
            propertiesToUpdate: ["score": .expression(try ValueExpression(format: "score + 1"))])
        _ = try await context.perform { try $0.execute(request) }
    }

    /// Workload 11: one person in ten (whole teams: a manager and the nine after it) deleted by
    /// a batch delete request.
    public static func batchDeleteTenth(_ context: ManagedObjectContext) async throws {
        let request = BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "age < 10"))
        _ = try await context.perform { try $0.execute(request) }
    }
}
