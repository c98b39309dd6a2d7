import Foundation
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// A save's new rows go to PostgreSQL as arrays spread by `unnest`, up to 10,000 rows a
/// statement (issue 34): every value must read back as it was saved — each of the four column
/// storages, `NULL`s among them, a subentity's rows beside its parent's in one table — and an
/// insert whose key is taken must still be reported for its object, as the row-by-row insert's
/// optimistic check reports it.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresBatchedInsertTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Reading") {
            AttributeDescription("title", .string, optional: true)
            AttributeDescription("pages", .integer64, optional: true)
            AttributeDescription("rating", .double, optional: true)
            AttributeDescription("cover", .binaryData, optional: true)
            AttributeDescription("started", .date, optional: true)
            AttributeDescription("finished", .boolean, defaultValue: false)
            AttributeDescription("code", .uuid, optional: true)
            RelationshipDescription("previous", toOne: "Reading", inverse: "followers")
            RelationshipDescription("followers", toMany: "Reading", inverse: "previous")
        }
        EntityDescription("Audiobook", superentity: "Reading") {
            AttributeDescription("narrator", .string, optional: true)
            AttributeDescription("minutes", .integer32, defaultValue: 0)
        }
    }

    /// Every key and its value (as text that compares exactly) of each object, by URI.
    static func snapshot(_ objects: [ManagedObject]) throws -> [String: [String: String]] {
        var snapshot: [String: [String: String]] = [:]
        for object in objects {
            var values: [String: String] = [:]
            for name in object.entity.attributesByName.keys {
                values[name] = String(describing: try object.primitiveAttributeValue(forKey: name))
            }
            values["previous"] = (try object.value(forKey: "previous") as? ManagedObject)?.objectID.uriRepresentation().absoluteString ?? "-"
            snapshot[object.objectID.uriRepresentation().absoluteString] = values
        }
        return snapshot
    }

    @Test(arguments: [1, 2, 12_345])
    func aSaveOfManyNewObjectsKeepsEveryValue(count: Int) async throws {
        let url = try await PostgresTestServer.newStoreURL()
        PostgresStore.register()
        let writer = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await writer.addPersistentStore(type: .postgreSQL, at: url)
        let saved = try await backgroundContext(writer).perform { context in
            var random = SplitMix64(seed: UInt64(count))
            var objects: [ManagedObject] = []
            for index in 0..<count {
                let bits = random.next()
                let object = try context.insertNewObject(forEntityName: bits % 3 == 0 ? "Audiobook" : "Reading")
                func maybe(_ value: Any, _ key: String, _ bit: UInt64) throws {
                    if bits >> bit & 1 == 1 { try object.setValue(value, forKey: key) }
                }
                try maybe(["", "plain", "naïve café ☕️", "line\nbreak", "quote ' \" \\ {a,b}", "NULL"][Int(bits % 6)], "title", 8)
                try maybe(Int64(bitPattern: bits), "pages", 9)
                try maybe([Double(Int64(bitPattern: bits)) / 1_000_003, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude][Int(bits % 5)], "rating", 10)
                try maybe(Data((0..<Int(bits % 40)).map { UInt8(truncatingIfNeeded: bits >> ($0 % 56)) }), "cover", 11)
                try maybe(Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: bits)) + 0.125), "started", 12)
                try maybe(bits >> 13 & 1 == 1, "finished", 14)
                try maybe(UUID(), "code", 15)
                if object.entity.name == "Audiobook" {
                    try maybe("Narrator \(index)", "narrator", 16)
                    try maybe(Int32(truncatingIfNeeded: bits >> 20), "minutes", 17)
                }
                if !objects.isEmpty, bits >> 18 & 1 == 1 {
                    try object.setValue(objects[Int(bits >> 24) % objects.count], forKey: "previous")
                }
                objects.append(object)
            }
            try context.save()
            return try Self.snapshot(objects)
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await reader.addPersistentStore(type: .postgreSQL, at: url)
        let read = try await backgroundContext(reader).perform { context in
            try Self.snapshot(context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")))
        }
        #expect(read.count == count)
        #expect(read == saved)
    }

    /// A new store holding one saved `Reading` titled "first": the coordinator, its store, the
    /// object's ID, and the entity's number.
    static func storeWithOneReading() async throws -> (PersistentStoreCoordinator, PostgresStore, ManagedObjectID, Int) {
        let url = try await PostgresTestServer.newStoreURL()
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        let first = try await backgroundContext(coordinator).perform { context in
            let object = try context.insertNewObject(forEntityName: "Reading")
            try object.setValue("first", forKey: "title")
            try context.save()
            return object.objectID
        }
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        let entityNumber = try #require(store.mapping.entities["Reading"]?.number)
        return (coordinator, store, first, entityNumber)
    }

    /// The relational core's contract: a row whose key is taken inserts nothing, and its object
    /// is among those `finishWrites()` returns; the others are inserted.
    @Test func anInsertWhoseKeyIsTakenIsReportedForItsObject() async throws {
        let (_, store, taken, entityNumber) = try await Self.storeWithOneReading()
        let key = try #require(taken.referenceNumber)
        let fresh = [key + 100, key + 101].map { store.objectID(entity: "Reading", reference: $0) }
        let (unchanged, titles) = try store.pool.withConnection { connection in
            let session = store.relationalSession(connection)
            var batch = RelationalWriteBatch(
                .insert(columns: ["Z_PK", "Z_ENT", "Z_OPT", "ZTITLE"]), table: "ZREADING",
                rowSQL: "INSERT INTO \(store.dialect.table("ZREADING")) (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZTITLE\") VALUES ($1, $2, $3, $4) ON CONFLICT (\"Z_PK\") DO NOTHING")
            for (id, title) in zip([fresh[0], taken, fresh[1]], ["a", "clash", "b"]) {
                batch.rows.append(([.integer(id.referenceNumber ?? 0), .integer(Int64(entityNumber)), .integer(1), .text(title)], id))
            }
            try session.write(batch)
            let unchanged = try session.finishWrites()
            var titles: [String] = []
            try session.forEachRow("SELECT \"ZTITLE\" FROM \(store.dialect.table("ZREADING")) ORDER BY \"Z_PK\"", []) {
                if case .text(let title) = $0[0] { titles.append(title) }
            }
            return (unchanged, titles)
        }
        #expect(unchanged == [taken])
        #expect(titles == ["first", "a", "b"])
    }

    /// Without the per-row check (a save's first try), a batch whose key is taken is a plain
    /// `INSERT` that the server refuses whole, with `23505`, which ``PostgresStore`` retries.
    @Test func anUncheckedBatchWithATakenKeyFailsWhole() async throws {
        let (_, store, first, entityNumber) = try await Self.storeWithOneReading()
        let taken = try #require(first.referenceNumber)
        let error = #expect(throws: PostgresStoreError.self) {
            try store.pool.withConnection { connection in
                let session = store.relationalSession(connection, checksWrittenKeys: false)
                var batch = RelationalWriteBatch(.insert(columns: ["Z_PK", "Z_ENT", "Z_OPT", "ZTITLE"]), table: "ZREADING", rowSQL: "")
                for (key, title) in zip([taken + 100, taken, taken + 101], ["a", "clash", "b"]) {
                    batch.rows.append(([.integer(key), .integer(Int64(entityNumber)), .integer(1), .text(title)], nil))
                }
                try session.write(batch)
                _ = try session.finishWrites()
            }
        }
        #expect(error?.sqlState == "23505")
        let titles = try await PostgresTestServer.rows("SELECT \"ZTITLE\" FROM \(store.dialect.table("ZREADING")) ORDER BY \"Z_PK\"")
        #expect(titles == [["first"]])
    }

    /// A save of new objects whose keys the counter hands out again (`Z_MAX` set back, as a
    /// restored or hand-edited store may have it) fails as a conflict naming the object whose
    /// key is taken, and writes none of them: the first try's plain `INSERT` fails, and the
    /// retry checks each key (``PostgresStore/SaveAttempt``).
    @Test func aNewObjectGivenATakenKeyIsAConflictOfItsOwn() async throws {
        let (coordinator, store, first, entityNumber) = try await Self.storeWithOneReading()
        try await PostgresTestServer.execute("UPDATE \(store.dialect.table("Z_PRIMARYKEY")) SET \"Z_MAX\" = 0 WHERE \"Z_ENT\" = \(entityNumber)")
        // Another context, so that the object holding the key is not in the one that saves.
        let error = await #expect(throws: PersistenceError.self) {
            try await backgroundContext(coordinator).perform { context in
                for title in ["second", "third", "fourth"] {
                    try context.insertNewObject(forEntityName: "Reading").setValue(title, forKey: "title")
                }
                try context.save()
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.objectIDs.map(\.referenceNumber) == [first.referenceNumber])
        #expect(error?.objectIDs.map(\.entityName) == ["Reading"])
        let titles = try await PostgresTestServer.rows("SELECT \"ZTITLE\" FROM \(store.dialect.table("ZREADING")) ORDER BY \"Z_PK\"")
        #expect(titles == [["first"]])
    }
}
