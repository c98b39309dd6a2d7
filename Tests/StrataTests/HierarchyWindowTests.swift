import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// A sorted, windowed fetch of an entity with subentities — Core Data stores a hierarchy in one
/// table, and its fetches include subentities by default (`includesSubentities`) — gives what the
/// context's own evaluation gives: seeded random requests (predicate, sort, offset, limit, batch
/// size, subentities or not) on a three-level hierarchy, asked of the coordinator's in-memory
/// tables and of the SQL stores. The SQL stores answer such a fetch in their own query (the
/// context considers only the window's rows), each object of its own entity with its to-many
/// relationships. `STRATA_FUZZ_SEED` replays a run.
@Suite struct HierarchyWindowTests {
    static let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)

    static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel {
                EntityDescription("Shelf") {
                    AttributeDescription("label", .string)
                    RelationshipDescription("items", toMany: "Item", inverse: "shelf")
                }
                EntityDescription("Item") {
                    AttributeDescription("key", .integer64)
                    AttributeDescription("title", .string)
                    AttributeDescription("rank", .integer32, optional: true)
                    RelationshipDescription("shelf", toOne: "Shelf", inverse: "items")
                }
                EntityDescription("Book", superentity: "Item") {
                    AttributeDescription("pages", .integer32)
                    RelationshipDescription("related", toMany: "Note", inverse: "relatedBy")
                }
                EntityDescription("Ebook", superentity: "Book") { AttributeDescription("megabytes", .double) }
                EntityDescription("Note", superentity: "Item") {
                    AttributeDescription("text", .string)
                    RelationshipDescription("relatedBy", toMany: "Book", inverse: "related")
                }
            }
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    /// The same objects in every store: `count` items of the three concrete entities, on shelves,
    /// books related to notes (many-to-many).
    static func fill(_ coordinator: PersistentStoreCoordinator, count: Int, seed: UInt64) async throws {
        try await backgroundContext(coordinator).perform { context in
            var random = SplitMix64(seed: seed)
            let shelves = try (0..<4).map { index in
                let shelf = try context.insertNewObject(forEntityName: "Shelf")
                try shelf.setValue("shelf \(index)", forKey: "label")
                return shelf
            }
            var items: [ManagedObject] = []
            for key in 0..<count {
                let entity = ["Book", "Ebook", "Note"][Int.random(in: 0..<3, using: &random)]
                let item = try context.insertNewObject(forEntityName: entity)
                try item.setValue(Int64(key), forKey: "key")
                // Few titles and ranks, so that sorts meet ties (broken by the objects' order).
                try item.setValue("title \(Int.random(in: 0..<8, using: &random))", forKey: "title")
                try item.setValue(Bool.random(using: &random) ? nil : Int32.random(in: 0..<5, using: &random), forKey: "rank")
                try item.setValue(shelves[Int.random(in: 0..<4, using: &random)], forKey: "shelf")
                if entity != "Note" { try item.setValue(Int32.random(in: 10..<500, using: &random), forKey: "pages") }
                if entity == "Ebook" { try item.setValue(Double.random(in: 0..<9, using: &random), forKey: "megabytes") }
                if entity == "Note" { try item.setValue("note \(key)", forKey: "text") }
                items.append(item)
            }
            let notes = items.filter { $0.entity.name == "Note" }
            for item in items where item.entity.name != "Note" && !notes.isEmpty {
                let related = (0..<Int.random(in: 0...3, using: &random)).map { _ in notes[Int.random(in: 0..<notes.count, using: &random)] }
                try item.setValue(Set(related), forKey: "related")
            }
            try context.save()
        }
    }

    struct Asked: Sendable, CustomStringConvertible {
        var entity: String
        var includesSubentities: Bool
        var predicate: String?
        var sort: [FetchSortDescriptor]
        var offset: Int
        var limit: Int
        var batchSize: Int

        var description: String {
            "\(entity)\(includesSubentities ? "" : " only") where \(predicate ?? "-") by \(sort.map { "\($0.key)\($0.ascending ? "↑" : "↓")" }) "
                + "offset \(offset) limit \(limit) batch \(batchSize)"
        }

        static func random(using random: inout SplitMix64) -> Asked {
            let predicates: [String?] = [nil, "rank >= 2", "title IN {'title 1', 'title 3', 'title 4'}", "rank == nil OR key < 40", "shelf.label == 'shelf 2'"]
            let sorts: [[FetchSortDescriptor]] = [
                [.ascending("title")], [.descending("title")], [.ascending("rank"), .descending("title")], [.descending("key")], [.ascending("shelf.label"), .ascending("key")],
            ]
            return Asked(
                entity: Bool.random(using: &random) ? "Item" : "Book", includesSubentities: Int.random(in: 0..<5, using: &random) > 0,
                predicate: predicates[Int.random(in: 0..<predicates.count, using: &random)], sort: sorts[Int.random(in: 0..<sorts.count, using: &random)],
                offset: [0, 0, 3, 17, 90][Int.random(in: 0..<5, using: &random)], limit: [0, 1, 7, 25][Int.random(in: 0..<4, using: &random)],
                batchSize: Bool.random(using: &random) ? 0 : 4)
        }
    }

    /// What a fetch gives, as comparable text: each object's entity, key, title and related
    /// keys (to-many relationships read from the store), and how many rows the context considered.
    static func answer(_ asked: Asked, in context: isolated ManagedObjectContext) throws -> (objects: [String], count: Int, considered: Int) {
        var request = FetchRequest<ManagedObject>(entityName: asked.entity)
        request.includesSubentities = asked.includesSubentities
        request.predicate = try asked.predicate.map { try FetchPredicate(format: $0) }
        request.sortDescriptors = asked.sort
        (request.fetchOffset, request.fetchLimit, request.fetchBatchSize) = (asked.offset, asked.limit, asked.batchSize)
        let objects = try context.fetch(request)
        let considered = context.graph.rowsConsidered
        let described = try objects.map { object in
            let key = try object.value(forKey: "key") as? Int64 ?? -1
            let related = object.entity.name == "Note" ? [] : (try object.value(forKey: "related") as? Set<ManagedObject> ?? [])
            let relatedKeys = try related.map { try $0.value(forKey: "key") as? Int64 ?? -1 }.sorted()
            return "\(object.entity.name)#\(key) \(try object.value(forKey: "title") as? String ?? "?") \(relatedKeys)"
        }
        return (described, try context.count(for: request), considered)
    }

    @Test func sortedWindowsOfAHierarchyAreTheContextsAndRunInTheSQLStores() async throws {
        print("HierarchyWindowTests: STRATA_FUZZ_SEED=\(Self.seed)")
        let kinds: [StoreKind] = [.inMemory] + StoreKind.queryable.filter { $0 != .inMemory }
        var coordinators: [StoreKind: PersistentStoreCoordinator] = [:]
        for kind in kinds {
            let coordinator = try await makeCoordinator(Self.model, kind)
            try await Self.fill(coordinator, count: 120, seed: Self.seed)
            coordinators[kind] = coordinator
        }
        var random = SplitMix64(seed: Self.seed)
        var answeredInSQL = 0
        for _ in 0..<60 {
            let asked = Asked.random(using: &random)
            let expected = try await backgroundContext(coordinators[.inMemory]!).perform { try Self.answer(asked, in: $0) }
            for kind in kinds where kind != .inMemory {
                let answer = try await backgroundContext(coordinators[kind]!).perform { try Self.answer(asked, in: $0) }
                #expect(answer.objects == expected.objects, "\(kind): \(asked)")
                #expect(answer.count == expected.count, "\(kind): \(asked)")
                // Predicates and sort keys through the to-one `shelf` aside, the store answered
                // the window alone: the context considered no row outside it.
                if asked.batchSize == 0, !(asked.predicate ?? "").contains("shelf"), !asked.sort.contains(where: { $0.key.contains(".") }) {
                    #expect(answer.considered == answer.objects.count, "\(kind): \(asked) considered \(answer.considered)")
                    answeredInSQL += 1
                }
            }
        }
        if kinds.count > 1 { #expect(answeredInSQL > 10) }
    }

    /// Unsaved changes of a subentity are in a fetch of its parent: the store's window is not
    /// taken alone then (Core Data's `includesPendingChanges`).
    @Test(arguments: StoreKind.queryable.filter { $0 != .inMemory })
    func aSubentitysUnsavedObjectIsInItsParentsWindow(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model, kind)
        try await Self.fill(coordinator, count: 30, seed: 7)
        try await backgroundContext(coordinator).perform { context in
            let ebook = try context.insertNewObject(forEntityName: "Ebook")
            try ebook.setValue(Int64(1_000), forKey: "key")
            try ebook.setValue("a first title", forKey: "title")
            var request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [.ascending("title")])
            request.fetchLimit = 1
            #expect(try context.fetch(request).first === ebook)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) == 31)
        }
    }
}
