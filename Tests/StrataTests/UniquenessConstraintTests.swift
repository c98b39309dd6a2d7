import Foundation
import Strata
import Testing

/// Uniqueness constraints: refused under the error policy, "upserted" under the others.
@Suite struct UniquenessConstraintTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person") {
                AttributeDescription("email", .string)
                AttributeDescription("name", .string, optional: true)
                AttributeDescription("age", .integer16, optional: true)
                UniquenessConstraint("email")
            }
        }
    }

    /// A store with ada@example.org (name "Ada", age 36); returns its ID.
    static func seeded(_ kind: StoreKind) async throws -> (PersistentStoreCoordinator, ManagedObjectID) {
        let coordinator = try await makeCoordinator(model(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let ada = try context.insertNewObject(forEntityName: "Person")
            try ada.setValue("ada@example.org", forKey: "email")
            try ada.setValue("Ada", forKey: "name")
            try ada.setValue(36, forKey: "age")
            try context.save()
            return ada.objectID
        }
        return (coordinator, id)
    }

    static func people(_ coordinator: PersistentStoreCoordinator) async throws -> [String] {
        try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [.ascending("email")])).map {
                "\(try $0.value(forKey: "email") ?? "-") \(try $0.value(forKey: "name") ?? "nil") \(try $0.value(forKey: "age") ?? "nil")"
            }
        }
    }

    @Test(arguments: StoreKind.queryable)
    func aDuplicateIsRefusedUnderTheErrorPolicy(_ kind: StoreKind) async throws {
        let (coordinator, id) = try await Self.seeded(kind)
        let error = try await backgroundContext(coordinator).perform { context in
            let copy = try context.insertNewObject(forEntityName: "Person")
            try copy.setValue("ada@example.org", forKey: "email")
            return #expect(throws: PersistenceError.self) { try context.save() }
        }
        #expect(error?.code == .constraintConflict)
        #expect(error?.constraintConflicts.first?.constraint == ["email"])
        #expect(error?.constraintConflicts.first?.storeObjectID == id)
        #expect(try await Self.people(coordinator) == ["ada@example.org Ada 36"])
    }

    @Test(arguments: [
        (MergePolicy.mergeByPropertyObjectTrump, "ada@example.org Augusta 36"),
        (MergePolicy.overwrite, "ada@example.org Augusta nil"),
        (MergePolicy.mergeByPropertyStoreTrump, "ada@example.org Ada 36"),
        (MergePolicy.rollback, "ada@example.org Ada 36"),
    ])
    func aDuplicateInsertBecomesTheStoredObject(_ policy: MergePolicy, _ expected: String) async throws {
        for kind in StoreKind.queryable {
            let (coordinator, id) = try await Self.seeded(kind)
            let savedID = try await backgroundContext(coordinator).perform { context in
                context.mergePolicy = policy
                let copy = try context.insertNewObject(forEntityName: "Person")
                try copy.setValue("ada@example.org", forKey: "email")
                try copy.setValue("Augusta", forKey: "name")
                try context.save()
                return copy.objectID
            }
            #expect(savedID == id, "\(kind): the inserted object took the stored object's identity")
            #expect(try await Self.people(coordinator) == [expected], "\(kind)")
        }
    }

    @Test(arguments: StoreKind.queryable)
    func aStoredObjectInTheContextTakesTheInsertedValues(_ kind: StoreKind) async throws {
        let (coordinator, id) = try await Self.seeded(kind)
        let name = try await backgroundContext(coordinator).perform { context in
            context.mergePolicy = .mergeByPropertyObjectTrump
            let existing = try context.existingObject(with: id)
            let copy = try context.insertNewObject(forEntityName: "Person")
            try copy.setValue("ada@example.org", forKey: "email")
            try copy.setValue("Countess", forKey: "name")
            try context.save()
            #expect(copy.managedObjectContext == nil)
            return try existing.value(forKey: "name") as? String
        }
        #expect(name == "Countess")
        #expect(try await Self.people(coordinator) == ["ada@example.org Countess 36"])
    }

    @Test(arguments: StoreKind.queryable)
    func twoContextsInsertingTheSameKeyAtOnceMakeOneObject(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model(), kind)
        let first = backgroundContext(coordinator)
        let second = backgroundContext(coordinator)
        for context in [first, second] {
            _ = try await context.perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        }
        try await first.perform { context in
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue("grace@example.org", forKey: "email")
            try person.setValue("Grace", forKey: "name")
            try context.save()
        }
        // The second context read before the first saved: only the coordinator can see the clash.
        let error = try await second.perform { context in
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue("grace@example.org", forKey: "email")
            try person.setValue(85, forKey: "age")
            return #expect(throws: PersistenceError.self) { try context.save() }
        }
        #expect(error?.code == .constraintConflict)
        try await second.perform { context in
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
        }
        #expect(try await Self.people(coordinator) == ["grace@example.org Grace 85"])
    }

    /// A stored tag "swift" holds one item. A context inserts "swift" again and gives it to a
    /// new item: after the upsert both items hold the stored tag, and the tag holds both
    /// (overwrite writes the in-memory tag whole: it holds the new item only, and the old item
    /// lets it go). Each side of every link agrees.
    @Test(arguments: [
        (MergePolicy.mergeByPropertyObjectTrump, ["new", "old"]),
        (.mergeByPropertyStoreTrump, ["new", "old"]),
        (.rollback, ["new", "old"]),
        (.overwrite, ["new"]),
    ])
    func anUpsertKeepsTheLinksOfBothObjects(_ policy: MergePolicy, _ expected: [String]) async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Item") {
                AttributeDescription("name", .string)
                RelationshipDescription("tags", toMany: "Tag", inverse: "items")
            }
            EntityDescription("Tag") {
                AttributeDescription("code", .string)
                RelationshipDescription("items", toMany: "Item", inverse: "tags")
                UniquenessConstraint("code")
            }
        }
        let coordinator = try await makeCoordinator(model)
        try await backgroundContext(coordinator).perform { try Self.saveItem("old", taggedSwift: $0) }
        try await backgroundContext(coordinator).perform { context in
            context.mergePolicy = policy
            try Self.saveItem("new", taggedSwift: context)
        }
        let (tagCount, holders, itemTags) = try await backgroundContext(coordinator).perform { context in
            let tags = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
            let holders = try (tags.first?.value(forKey: "items") as? Set<ManagedObject> ?? []).map { try $0.value(forKey: "name") as? String ?? "" }
            var itemTags: [String: Int] = [:]
            for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
                itemTags[try item.value(forKey: "name") as? String ?? ""] = (try item.value(forKey: "tags") as? Set<ManagedObject>)?.count
            }
            return (tags.count, holders.sorted(), itemTags)
        }
        #expect(tagCount == 1)
        #expect(holders == expected)
        #expect(itemTags == ["old": expected.contains("old") ? 1 : 0, "new": 1])
    }

    /// Saves a new item with a new tag "swift".
    static func saveItem(_ name: String, taggedSwift context: isolated ManagedObjectContext) throws {
        let item = try context.insertNewObject(forEntityName: "Item")
        try item.setValue(name, forKey: "name")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try tag.setValue("swift", forKey: "code")
        try item.setValue(Set([tag]), forKey: "tags")
        try context.save()
    }
}
