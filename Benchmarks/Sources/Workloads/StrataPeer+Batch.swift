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
        try await coordinator.addPersistentStore(type: storeType(of: url), at: url, options: storeOptions(of: url))
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

    /// Workload 13: people grouped by age in a dictionary fetch: how many, the lowest and the
    /// highest score of each age, in order of age (what both SQL stores compute in SQL).
    public static func groupByAge(_ context: ManagedObjectContext) async throws -> Int {
        var request = FetchRequest<Person>()
        request.propertiesToGroupBy = ["age"]
        request.propertiesToFetch = [
            .key("age"),
            ExpressionDescription(name: "people", expression: try ValueExpression(format: "count:(name)")),
            ExpressionDescription(name: "lowest", expression: try ValueExpression(format: "min:(score)")),
            ExpressionDescription(name: "highest", expression: try ValueExpression(format: "max:(score)")),
        ]
        request.sortDescriptors = [.ascending("age")]
        let request1 = request
        return try await context.perform { try $0.fetchDictionaries(request1).count }
    }
}
