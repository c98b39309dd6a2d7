import Foundation
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// A save's to-many relationships go to PostgreSQL in batches (issue 34): the links of a join
/// table as one `INSERT … SELECT … FROM unnest(…)` per side and 10,000 links, the deleted
/// owners' links as one `DELETE … USING unnest(…)`, an ordered one-to-many's positions as one
/// `UPDATE … FROM unnest(…)`. Whatever the batching, each relationship must read back as the
/// context held it when it saved — Core Data's to-many relationships: unordered ones as the same
/// set, ordered ones (`NSOrderedSet`) in the same order — and a deleted object must leave no
/// link behind (Core Data's join tables hold links of stored objects only).
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresBatchedLinkTests {
    /// Many-to-many relationships unordered on both sides, ordered on one, ordered on both
    /// (join tables: a link both its ends write is written once unless each side keeps a
    /// position) and an ordered one-to-many (positions in the targets' own rows).
    static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel {
                EntityDescription("Item") {
                    AttributeDescription("name", .string)
                    RelationshipDescription("tags", toMany: "Tag", inverse: "items")
                    RelationshipDescription("shelves", toMany: "Shelf", inverse: "items", ordered: true)
                    RelationshipDescription("steps", toMany: "Step", inverse: "item", ordered: true)
                    RelationshipDescription("lists", toMany: "List", inverse: "items", ordered: true)
                }
                EntityDescription("List") {
                    AttributeDescription("name", .string)
                    RelationshipDescription("items", toMany: "Item", inverse: "lists", ordered: true)
                }
                EntityDescription("Tag") {
                    AttributeDescription("name", .string)
                    RelationshipDescription("items", toMany: "Item", inverse: "tags")
                }
                EntityDescription("Shelf") {
                    AttributeDescription("name", .string)
                    RelationshipDescription("items", toMany: "Item", inverse: "shelves")
                }
                EntityDescription("Step") {
                    AttributeDescription("name", .string)
                    RelationshipDescription("item", toOne: "Item", inverse: "steps")
                }
            }
        } catch {
            fatalError("the model is valid: \(error)")
        }
    }()

    /// Every item's relationships by name: its tags sorted (a set), its shelves, steps and lists
    /// in order; and every list's items in order.
    static func snapshot(_ objects: [ManagedObject]) throws -> [String: [String]] {
        func names(_ objects: some Sequence<ManagedObject>) throws -> [String] { try objects.map { try $0.value(forKey: "name") as? String ?? "?" } }
        var snapshot: [String: [String]] = [:]
        for object in objects {
            let name = try #require(try object.value(forKey: "name") as? String)
            if object.entity.name == "List" {
                snapshot[name] = try names(try #require(try object.value(forKey: "items") as? [ManagedObject]))
                continue
            }
            let tags = try #require(try object.value(forKey: "tags") as? Set<ManagedObject>)
            let shelves = try #require(try object.value(forKey: "shelves") as? [ManagedObject])
            let steps = try #require(try object.value(forKey: "steps") as? [ManagedObject])
            let lists = try #require(try object.value(forKey: "lists") as? [ManagedObject])
            snapshot[name] = try names(tags).sorted() + ["|"] + names(shelves) + ["|"] + names(steps) + ["|"] + names(lists)
        }
        return snapshot
    }

    /// Gives `item` random tags and shelves (in a random order) from `bits`; `steps` are its own.
    static func link(_ item: ManagedObject, tags: [ManagedObject], shelves: [ManagedObject], lists: [ManagedObject], random: inout SplitMix64) throws {
        let tagCount = Int(random.next() % 5)
        try item.setValue(Set((0..<tagCount).map { _ in tags[Int(random.next() % UInt64(tags.count))] }), forKey: "tags")
        var chosen: [ManagedObject] = []
        for _ in 0..<Int(random.next() % 4) {
            let shelf = shelves[Int(random.next() % UInt64(shelves.count))]
            if !chosen.contains(where: { $0 === shelf }) { chosen.append(shelf) }
        }
        try item.setValue(chosen, forKey: "shelves")
        // An item joins a list at its end or, once in a while, at its start.
        for _ in 0..<Int(random.next() % 3) {
            let items = try lists[Int(random.next() % UInt64(lists.count))].mutableOrderedSetValue(forKey: "items")
            guard !items.contains(item) else { continue }
            if random.next() % 4 == 0 { items.insert(item, at: 0) } else { items.add(item) }
        }
    }

    /// Saves `count` items linked at random to tags, shelves, lists and steps in a new store at
    /// `url`, then relinks a third, reorders their steps, deletes a seventh and a tag; returns
    /// what the context held and what another coordinator reads back.
    static func saveAndReadBack(count: Int, at url: URL, type: StoreType) async throws -> (saved: [String: [String]], read: [String: [String]]) {
        PostgresStore.register()
        let writer = PersistentStoreCoordinator(managedObjectModel: model)
        try await writer.addPersistentStore(type: type, at: url)
        let saved = try await backgroundContext(writer).perform { context in
            var random = SplitMix64(seed: UInt64(count) &+ 34)
            let tags = try (0..<max(count / 50, 3)).map { number in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                try tag.setValue("tag \(number)", forKey: "name")
                return tag
            }
            let shelves = try (0..<max(count / 100, 3)).map { number in
                let shelf = try context.insertNewObject(forEntityName: "Shelf")
                try shelf.setValue("shelf \(number)", forKey: "name")
                return shelf
            }
            let lists = try (0..<max(count / 100, 3)).map { number in
                let list = try context.insertNewObject(forEntityName: "List")
                try list.setValue("list \(number)", forKey: "name")
                return list
            }
            var items: [ManagedObject] = []
            for number in 0..<count {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("item \(number)", forKey: "name")
                try link(item, tags: tags, shelves: shelves, lists: lists, random: &random)
                let steps = try (0..<Int(random.next() % 4)).map { step in
                    let object = try context.insertNewObject(forEntityName: "Step")
                    try object.setValue("step \(number).\(step)", forKey: "name")
                    return object
                }
                try item.setValue(steps, forKey: "steps")
                items.append(item)
            }
            try context.save()
            // Then: some items relinked, some steps reordered, some items and tags deleted.
            for item in items where random.next() % 3 == 0 {
                try link(item, tags: tags, shelves: shelves, lists: lists, random: &random)
                let steps = try #require(try item.value(forKey: "steps") as? [ManagedObject])
                try item.setValue(Array(steps.reversed()), forKey: "steps")
            }
            var kept: [ManagedObject] = []
            for item in items {
                if random.next() % 7 == 0 { context.delete(item) } else { kept.append(item) }
            }
            context.delete(tags[0])
            try context.save()
            return try snapshot(kept + lists)
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: model)
        try await reader.addPersistentStore(type: type, at: url)
        let read = try await backgroundContext(reader).perform { context in
            try snapshot(context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) + context.fetch(FetchRequest<ManagedObject>(entityName: "List")))
        }
        return (saved, read)
    }

    @Test(arguments: [2, 12_345])
    func aSaveOfManyLinksKeepsEveryRelationshipAndDeletedObjectsLeaveNone(count: Int) async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let (saved, read) = try await Self.saveAndReadBack(count: count, at: url, type: .postgreSQL)
        #expect(read.count == saved.count)
        let differing = saved.filter { read[$0.key] != $0.value }.keys.sorted()
        #expect(differing.isEmpty, "\(differing.count) items read back otherwise, first \(differing.prefix(3).map { "\($0): saved \(saved[$0] ?? []), read \(read[$0] ?? [])" })")

        // No link of a deleted item or tag stays in the join table.
        let mapping = CoreDataTableMapping(model: Self.model)
        let toMany = try #require(mapping.entities["Item"]?.toManys.first { $0.destination == "Tag" })
        guard case .joinTable(let join, let own, let other, _, _, let destination) = toMany.storage,
            let items = mapping.entities["Item"]?.table
        else {
            Issue.record("a many-to-many has a join table")
            return
        }
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let orphans = try await PostgresTestServer.rows(
            "SELECT count(*)::text FROM \"\(schema)\".\"\(join)\" AS link WHERE NOT EXISTS (SELECT 1 FROM \"\(schema)\".\"\(items)\" WHERE \"Z_PK\" = link.\"\(own)\") "
                + "OR NOT EXISTS (SELECT 1 FROM \"\(schema)\".\"\(destination)\" WHERE \"Z_PK\" = link.\"\(other)\")")
        #expect(orphans.map { $0[0] } == ["0"])
    }

    /// Deleted objects' links go with them even when the other side is not in the save (a save
    /// through the store's contract naming only the deleted items): the deleted owners' links
    /// as one `DELETE … USING unnest(…)`, not only through the tags' own rewrites.
    @Test func deletedOwnersLinksGoInOneStatementEvenWithoutTheOtherSide() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        let items = try await backgroundContext(coordinator).perform { context in
            let tags = try (0..<3).map { number in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                try tag.setValue("tag \(number)", forKey: "name")
                return tag
            }
            let items = try (0..<4).map { number in
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("item \(number)", forKey: "name")
                try item.setValue(Set(tags), forKey: "tags")
                return item
            }
            try context.save()
            return items.map(\.objectID)
        }
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        _ = try store.execute(
            .save(SaveChangesRequest(insertedObjects: [], updatedObjects: [], deletedObjects: [items[0]: 1, items[1]: 1])), with: nil)

        let mapping = CoreDataTableMapping(model: Self.model)
        let toMany = try #require(mapping.entities["Item"]?.toManys.first { $0.destination == "Tag" })
        guard case .joinTable(let join, let own, _, _, _, _) = toMany.storage else {
            Issue.record("a many-to-many has a join table")
            return
        }
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let links = try await PostgresTestServer.rows("SELECT \"\(own)\"::text FROM \"\(schema)\".\"\(join)\" ORDER BY 1")
        let kept = try [items[2], items[3]].map { try #require($0.referenceNumber) }.sorted()
        #expect(links.map { $0[0] } == kept.flatMap { Array(repeating: "\($0)", count: 3) })
    }
}
