import Foundation
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// A save's changed rows go to PostgreSQL as one `UPDATE … FROM unnest(…)` per entity, columns
/// changed and 10,000 rows, its deleted rows as one `DELETE … USING unnest(…)` per table
/// (issue 34): every value must read back as saved — each of the four column storages, values
/// set to `NULL`, to-ones moved and cleared, objects of one table changed in different
/// columns — exactly the deleted objects must be gone, and optimistic locking must still name
/// each object another server changed since its context read it, and keep nothing of that save
/// (Core Data's optimistic locking: `NSManagedObjectContext.save()` fails with the conflicts
/// and the store is unchanged).
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresBatchedWriteTests {
    static let model = PostgresBatchedInsertTests.model

    static func server(_ url: URL) async throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        return coordinator
    }

    /// Sets a random selection of `object`'s values from `bits`: each key set or not, a set key
    /// given a value or `nil`, so that objects of one save differ in the columns they change.
    static func change(_ object: ManagedObject, _ bits: UInt64, among objects: [ManagedObject]) throws {
        func maybe(_ value: Any, _ key: String, _ bit: UInt64) throws {
            guard bits >> bit & 1 == 1 else { return }
            try object.setValue(bits >> (bit + 20) & 1 == 1 ? nil : value, forKey: key)
        }
        try maybe(["", "plain", "naïve café ☕️", "quote ' \" \\ {a,b}", "NULL"][Int(bits % 5)], "title", 8)
        try maybe(Int64(bitPattern: bits), "pages", 9)
        try maybe([Double(Int64(bitPattern: bits)) / 1_000_003, -0.0, .infinity, -.infinity][Int(bits % 4)], "rating", 10)
        try maybe(Data((0..<Int(bits % 40)).map { UInt8(truncatingIfNeeded: bits >> ($0 % 56)) }), "cover", 11)
        try maybe(Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: bits)) + 0.125), "started", 12)
        if bits >> 14 & 1 == 1 { try object.setValue(bits >> 34 & 1 == 1, forKey: "finished") }
        try maybe(UUID(), "code", 15)
        if object.entity.name == "Audiobook" {
            try maybe("Narrator \(bits % 97)", "narrator", 16)
            if bits >> 17 & 1 == 1 { try object.setValue(Int32(truncatingIfNeeded: bits >> 40), forKey: "minutes") }
        }
        if bits >> 18 & 1 == 1, !objects.isEmpty {
            let target = objects[Int(bits >> 24) % objects.count]
            try object.setValue(bits >> 38 & 1 == 1 || target === object ? nil : target, forKey: "previous")
        }
    }

    /// `count` new objects of both entities of the one table, with random values, saved.
    static func insertSaved(_ count: Int, in context: isolated ManagedObjectContext, random: inout SplitMix64) throws -> [ManagedObject] {
        var objects: [ManagedObject] = []
        for _ in 0..<count {
            let bits = random.next()
            let object = try context.insertNewObject(forEntityName: bits % 3 == 0 ? "Audiobook" : "Reading")
            try Self.change(object, bits | 0xFF00, among: objects)
            objects.append(object)
        }
        try context.save()
        return objects
    }

    @Test(arguments: [1, 2, 12_345])
    func aSaveOfManyChangedObjectsKeepsEveryValue(count: Int) async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let writer = try await Self.server(url)
        let saved = try await backgroundContext(writer).perform { context in
            var random = SplitMix64(seed: UInt64(count) &+ 7)
            let objects = try Self.insertSaved(count, in: context, random: &random)
            // Then most of them change again, each in its own selection of columns.
            for object in objects {
                let bits = random.next()
                if bits % 8 != 0 { try Self.change(object, bits, among: objects) }
            }
            try context.save()
            return try PostgresBatchedInsertTests.snapshot(objects)
        }
        let reader = try await Self.server(url)
        let read = try await backgroundContext(reader).perform { context in
            try PostgresBatchedInsertTests.snapshot(context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")))
        }
        #expect(read.count == count)
        #expect(read == saved)
    }

    @Test(arguments: [2, 12_345])
    func aSaveDeletingManyObjectsDeletesExactlyThose(count: Int) async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let writer = try await Self.server(url)
        let kept = try await backgroundContext(writer).perform { context in
            var random = SplitMix64(seed: UInt64(count) &+ 11)
            let objects = try Self.insertSaved(count, in: context, random: &random)
            // Deleted in one save: about two in three, of both entities of the one table, with
            // their links to the others nullified.
            var kept: [ManagedObject] = []
            for object in objects {
                if random.next() % 3 == 0 { kept.append(object) } else { context.delete(object) }
            }
            if kept.count == count { context.delete(kept.removeLast()) }
            try context.save()
            return try PostgresBatchedInsertTests.snapshot(kept)
        }
        let reader = try await Self.server(url)
        let read = try await backgroundContext(reader).perform { context in
            try PostgresBatchedInsertTests.snapshot(context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")))
        }
        #expect(read == kept)
    }

    /// Another server changes three of 300 objects; a context that read all 300 then deletes
    /// them all: its save names exactly those three and deletes nothing.
    @Test func eachObjectAnotherServerChangedIsAConflictOfTheDelete() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let (ids, overtaken, late) = try await Self.overtake(url)
        try await late.perform { context in
            for id in ids { context.delete(try context.existingObject(with: id)) }
        }
        let error = await #expect(throws: PersistenceError.self) {
            try await late.perform { try $0.save() }
        }
        #expect(error?.code == .conflict)
        #expect(Set(error?.objectIDs ?? []) == Set(overtaken))
        let count = try await backgroundContext(try await Self.server(url)).perform { context in
            try context.count(for: FetchRequest<ManagedObject>(entityName: "Reading"))
        }
        #expect(count == 300, "the overtaken save deleted nothing")
    }

    /// 300 objects saved, a context of another server that has read them all, and three of them
    /// changed by the first server since.
    static func overtake(_ url: URL) async throws -> (ids: [ManagedObjectID], overtaken: [ManagedObjectID], late: ManagedObjectContext) {
        let first = try await Self.server(url)
        let ids = try await backgroundContext(first).perform { context in
            let objects = try (0..<300).map { index in
                let object = try context.insertNewObject(forEntityName: "Reading")
                try object.setValue("first \(index)", forKey: "title")
                return object
            }
            try context.save()
            return objects.map(\.objectID)
        }
        let late = backgroundContext(try await Self.server(url))
        try await late.perform { context in
            for id in ids { _ = try context.existingObject(with: id).value(forKey: "title") }
        }
        let overtaken = [ids[3], ids[150], ids[299]]
        try await backgroundContext(first).perform { context in
            for id in overtaken { try context.existingObject(with: id).setValue("other server", forKey: "title") }
            try context.save()
        }
        return (ids, overtaken, late)
    }

    /// Another server changes three of 300 objects; a context that read all 300 then changes
    /// them all: its save names exactly those three and leaves every stored value as it was.
    @Test func eachObjectAnotherServerChangedIsAConflict() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let (ids, overtaken, late) = try await Self.overtake(url)
        try await late.perform { context in
            for id in ids { try context.existingObject(with: id).setValue("late", forKey: "title") }
        }
        let error = await #expect(throws: PersistenceError.self) {
            try await late.perform { try $0.save() }
        }
        #expect(error?.code == .conflict)
        #expect(Set(error?.objectIDs ?? []) == Set(overtaken))
        let titles = try await backgroundContext(try await Self.server(url)).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).map { try $0.value(forKey: "title") as? String ?? "-" }
        }
        #expect(titles.filter { $0 == "late" }.isEmpty, "the overtaken save left nothing")
        #expect(titles.filter { $0 == "other server" }.count == 3)
    }
}
