import ArgumentParser
import Foundation
import Strata

/// `strata update STORE --entity E --where P --set KEY=EXPRESSION…`: a batch update.
struct UpdateStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Set attributes of the objects that match a predicate, in one save (a batch update).",
        discussion: """
            Each value is an expression in Core Data's syntax, evaluated on each object: a constant \
            (42, 'text', TRUE, nil) or a computation (pages + 1). The save is recorded in the store's \
            persistent history when the store records it, with the author "strata".
            """)

    @Argument(help: "A store file (binary or SQLite), or a postgres:// URL.")
    var store: String

    @Option(help: "The entity whose objects to update (its subentities' too).")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in Core Data's format-string syntax; every object when left out.")
    var predicate: String?

    @Option(name: .customLong("set"), help: "KEY=EXPRESSION; repeat for more attributes.")
    var assignments: [String]

    @Option(help: "The model (.xcdatamodel or .xcdatamodeld); by default, the one the store carries.")
    var model: String?

    func run() async throws {
        var request = BatchUpdateRequest(entityName: entity, predicate: try predicate.map { try FetchPredicate(format: $0) })
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw CommandFailure("'\(assignment)' is not KEY=EXPRESSION")
            }
            let key = String(assignment[..<equals]).trimmingCharacters(in: .whitespaces)
            request.propertiesToUpdate[key] = .expression(try ValueExpression(format: String(assignment[assignment.index(after: equals)...])))
        }
        request.resultType = .count
        let update = request
        let count = try await BatchStore.run(store, model: model) { try $0.execute(update).count ?? 0 }
        print("updated \(counted(count, "object")) in \(store)")
    }
}

/// `strata delete STORE --entity E [--where P]`: a batch delete.
struct DeleteStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the objects that match a predicate, with their delete rules, in one save (a batch delete).",
        discussion: """
            Cascades delete what they reach, and are counted; a deny rule or a required relationship \
            that would be left empty refuses the whole delete. Recorded in the store's persistent \
            history when the store records it, with the author "strata".
            """)

    @Argument(help: "A store file (binary or SQLite), or a postgres:// URL.")
    var store: String

    @Option(help: "The entity whose objects to delete (its subentities' too).")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in Core Data's format-string syntax; every object when left out.")
    var predicate: String?

    @Option(help: "The model (.xcdatamodel or .xcdatamodeld); by default, the one the store carries.")
    var model: String?

    func run() async throws {
        var request = BatchDeleteRequest(entityName: entity, predicate: try predicate.map { try FetchPredicate(format: $0) })
        request.resultType = .objectIDs
        let delete = request
        let ids = try await BatchStore.run(store, model: model) { try $0.execute(delete).objectIDs ?? [] }
        let matched = ids.filter { $0.entityName == entity }.count
        let cascaded = ids.count - matched
        print("deleted \(counted(ids.count, "object")) from \(store)" + (cascaded > 0 ? " (\(cascaded) by cascades)" : ""))
    }
}

/// Opening a store for a batch request: with persistent history tracking when it records history.
enum BatchStore {
    static func run<T: Sendable>(
        _ path: String, model modelPath: String?, _ body: @escaping @Sendable (isolated ManagedObjectContext) throws -> T
    ) async throws -> T {
        let url = try StoreFileKind.url(path)
        guard StoreFileKind.exists(url) else { throw CommandFailure("there is no store at \(path)") }
        let model = try StoreFileKind.model(for: url, given: modelPath)
        let type = StoreFileKind(of: url).storeType
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        // A store that records history takes the batch only if it is recorded too.
        let options: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: try StoreFileKind.recordsHistory(url)]
        let added = try await coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let result: Result<T, any Error> = try await context.perform { context in
            context.transactionAuthor = "strata"
            return Result { try body(context) }
        }
        try await coordinator.removePersistentStore(added)
        return try result.get()
    }
}
