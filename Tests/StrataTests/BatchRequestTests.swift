import Foundation
@testable import Strata
import StrataTestSupport
import StrataPostgres
import Testing

/// Batch insert, update and delete on every store type: what they change, the delete rules
/// they apply, the history they leave, and that they change the store exactly as the same
/// changes made with managed objects and saved.
@Suite struct BatchRequestTests {
    static let kinds: [StoreType] = [.sqlite, .binary, .inMemory] + (PostgresTestServer.isAvailable ? [.postgreSQL] : [])

    static func open(_ type: StoreType, in directory: URL, name: String = "Library") async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let url: URL? = switch type {
        case .inMemory: nil
        case .postgreSQL: try await PostgresTestServer.newStoreURL()
        default: directory.appendingPathComponent("\(name).\(type == .sqlite ? "sqlite" : "store")")
        }
        try await coordinator.addPersistentStore(type: type, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        return coordinator
    }

    /// A seeded library: authors with books, chapters, passports and shared tags.
    static func seed(_ coordinator: PersistentStoreCoordinator, seed: UInt64) async throws {
        try await backgroundContext(coordinator).perform { context in
            var random = SplitMix64(seed: seed)
            let tags = try (0..<5).map { index in
                let tag = try Tag(context: context)
                tag.label = "tag \(index)"
                return tag
            }
            for index in 0..<30 {
                let author = try Author(context: context)
                author.name = ["ann", "bob", "bea", "cy"][Int.random(in: 0..<4, using: &random)] + " \(index)"
                if Bool.random(using: &random) {
                    let passport = try Passport(context: context)
                    passport.number = "P\(index)"
                    author.passport = passport
                }
                for book in 0..<Int.random(in: 0...3, using: &random) {
                    let made = try Book(context: context)
                    made.title = "\(author.name)'s book \(book)"
                    made.pages = Int.random(in: 10...120, using: &random)
                    made.author = author
                    made.tags = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in tags[Int.random(in: 0..<5, using: &random)] })
                    made.chapters = try (0..<Int.random(in: 0...2, using: &random)).map { number in
                        let chapter = try Chapter(context: context)
                        chapter.title = "chapter \(number)"
                        return chapter
                    }
                }
            }
            try context.save()
        }
    }

    /// Every stored object: entity → reference → its attribute values and targets by reference.
    static func contents(_ coordinator: PersistentStoreCoordinator) async throws -> [String: [Int64: String]] {
        try await backgroundContext(coordinator).perform { context in
            var result: [String: [Int64: String]] = [:]
            for entity in context.persistentStoreCoordinator!.managedObjectModel.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var parts: [String] = []
                    for attribute in entity.attributes { parts.append("\(attribute.name)=\(String(describing: try object.value(forKey: attribute.name)))") }
                    for relationship in entity.relationships {
                        let targets = object.committedValues(forKeys: [relationship.name])[relationship.name]
                        let numbers: [Int64] = switch targets {
                        case let id as ManagedObjectID: [id.referenceNumber ?? 0]
                        case let ids as [ManagedObjectID]: ids.compactMap(\.referenceNumber).sorted()
                        default: []
                        }
                        parts.append("\(relationship.name)=\(numbers)")
                    }
                    result[entity.name, default: [:]][object.objectID.referenceNumber ?? 0] = parts.joined(separator: " ")
                }
            }
            return result
        }
    }

    @Test(arguments: kinds)
    func batchRequestsChangeTheStoreAsManagedObjectsWould(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = UInt64.random(in: 0...UInt64.max)
        let batched = try await Self.open(type, in: directory, name: "Batched")
        let managed = try await Self.open(type, in: directory, name: "Managed")
        try await Self.seed(batched, seed: seed)
        try await Self.seed(managed, seed: seed)
        #expect(try await Self.contents(batched) == Self.contents(managed), "seed \(seed)")

        let (updated, deleted) = try await backgroundContext(batched).perform { context in
            context.transactionAuthor = "batch"
            var update = BatchUpdateRequest(entityName: "Book", predicate: try FetchPredicate(format: "pages > 50"))
            update.propertiesToUpdate = ["pages": .expression(try ValueExpression(format: "pages + 1")), "title": .constant("long")]
            update.resultType = .count
            var delete = BatchDeleteRequest(entityName: "Author", predicate: try FetchPredicate(format: "name BEGINSWITH 'b'"))
            delete.resultType = .objectIDs
            return (try context.execute(update).count, try context.execute(delete).objectIDs ?? [])
        }
        let (expectedUpdated, expectedDeleted) = try await backgroundContext(managed).perform { context in
            let books = try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 50")))
            for book in books {
                book.pages += 1
                book.title = "long"
            }
            let authors = try context.fetch(FetchRequest<Author>(predicate: try FetchPredicate(format: "name BEGINSWITH 'b'")))
            let cascaded = authors.reduce(0) { $0 + 1 + ($1.passport == nil ? 0 : 1) + $1.books.reduce(0) { $0 + 1 + $1.chapters.count } }
            for author in authors { context.delete(author) }
            try context.save()
            return (books.count, cascaded)
        }
        #expect(updated == expectedUpdated, "seed \(seed)")
        #expect(deleted.count == expectedDeleted, "the deleted IDs include what cascades took, seed \(seed)")
        #expect(try await Self.contents(batched) == Self.contents(managed), "the same store either way, seed \(seed)")

        // Each request is one transaction of persistent history, by the executing context's author.
        let history = try await batched.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(history.count == 3 && history.dropFirst().allSatisfy { $0.author == "batch" })
        #expect(history[1].changes.allSatisfy { $0.changeType == .update && $0.updatedProperties?.isSubset(of: ["pages", "title"]) == true })
        #expect(history[2].changes.filter { $0.changeType == .delete }.count == expectedDeleted)
    }

    @Test(arguments: kinds)
    func batchInsertFillsDefaultsAndRefusesBadInputWhole(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try await Self.open(type, in: directory)
        let context = backgroundContext(coordinator)
        let ids = try await context.perform { context in
            var request = BatchInsertRequest(entityName: "Book", objects: [["title": "Emma", "pages": 474], ["title": "Persuasion"]])
            request.resultType = .objectIDs
            return try context.execute(request).objectIDs ?? []
        }
        #expect(ids.count == 2 && ids.allSatisfy { !$0.isTemporaryID })
        let titles = try await context.perform { context in
            try context.fetch(FetchRequest<Book>(sortDescriptors: [.ascending("title")])).map { "\($0.title) \($0.pages)" }
        }
        #expect(titles == ["Emma 474", "Persuasion 0"], "pages takes its default")
        let recorded = try await coordinator.execute(.fetchHistory(after: nil)).transactions
        #expect(recorded.map { Set($0.changes.map(\.changedObjectID)) } == [Set(ids)], "one transaction of the inserts")
        #expect(recorded.first?.changes.allSatisfy { $0.changeType == .insert } == true)

        var count = 0
        let handled = try await context.perform { context in
            let counter = ThreadLocked(0)
            let request = BatchInsertRequest(entityName: "Tag", dictionaryHandler: { dictionary in
                let next = counter.withLock { value in
                    value += 1
                    return value
                }
                guard next <= 3 else { return true }
                dictionary["label"] = "tag \(next)"
                return false
            })
            return try context.execute(request)
        }
        #expect(handled == .status(true))
        // Any context reads the latest state, the batch's included (a fresh one here).
        count = try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<Tag>()) }
        #expect(count == 3)

        // Objects filled by a handler, typed, past the thousand at which their context lets them go.
        let filled = try await context.perform { context in
            let counter = ThreadLocked(0)
            var request = BatchInsertRequest(entityName: "Chapter", managedObjectHandler: { object in
                let next = counter.withLock { value in
                    value += 1
                    return value
                }
                guard next <= 2_500, let chapter = object as? Chapter else { return true }
                chapter.title = "chapter \(next)"
                return false
            })
            request.resultType = .count
            return try context.execute(request)
        }
        #expect(filled == .count(2_500))
        let titles2 = try await backgroundContext(coordinator).perform { context in
            Set(try context.fetch(FetchRequest<Chapter>()).map(\.title))
        }
        #expect(titles2 == Set((1...2_500).map { "chapter \($0)" }))

        for bad: [[String: any Sendable]] in [[["title": 12]], [["title": "x", "colour": "red"]], [["title": "x"], ["pages": 3]]] {
            await #expect(throws: ValidationError.self) {
                try await context.perform { try $0.execute(BatchInsertRequest(entityName: "Book", objects: bad)) }
            }
        }
        #expect(try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<Book>()) } == 2, "a refused batch inserts nothing")
    }

    @Test(arguments: kinds)
    func contextsSeeBatchChangesOnlyByMerging(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try await Self.open(type, in: directory)
        try await Self.seed(coordinator, seed: 7)
        let viewer = backgroundContext(coordinator)
        let held = try await viewer.perform { context in
            try context.fetch(FetchRequest<Book>()).map(\.objectID)
        }
        let deleted = try await backgroundContext(coordinator).perform { context in
            var request = BatchDeleteRequest(entityName: "Book")
            request.resultType = .objectIDs
            return try context.execute(request).objectIDs ?? []
        }
        #expect(Set(held).isSubset(of: Set(deleted)), "the books, and the chapters their cascade took")
        #expect(deleted.filter { $0.entityName == "Book" }.count == held.count)
        let before = try await viewer.perform { context in held.filter { context.registeredObject(for: $0) != nil }.count }
        #expect(before == held.count, "the batch delete did not reach the context by itself")
        await ManagedObjectContext.mergeChanges(fromRemoteContextSave: ObjectIDChanges(deleted: Set(deleted)), into: [viewer])
        let after = try await viewer.perform { context in
            (held.filter { context.registeredObject(for: $0) != nil }.count, try context.count(for: FetchRequest<Book>()))
        }
        #expect(after == (0, 0))
    }

    @Test func aDenyRuleOrARequiredInverseStopsTheWholeDelete() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Shelf") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", toMany: "Volume", inverse: "shelf", deleteRule: .deny)
            }
            EntityDescription("Volume") {
                AttributeDescription("title", .string)
                RelationshipDescription("shelf", toOne: "Shelf", inverse: "books", deleteRule: .nullify, optional: false)
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .inMemory)
        let context = backgroundContext(coordinator)
        try await context.perform { context in
            for name in ["full", "empty"] {
                let shelf = try context.insertNewObject(forEntityName: "Shelf")
                try shelf.setValue(name, forKey: "name")
                if name == "full" {
                    let volume = try context.insertNewObject(forEntityName: "Volume")
                    try volume.setValue("Emma", forKey: "title")
                    try volume.setValue(shelf, forKey: "shelf")
                }
            }
            try context.save()
        }
        let denied = await #expect(throws: ValidationError.self) {
            try await context.perform { try $0.execute(BatchDeleteRequest(entityName: "Shelf")) }
        }
        #expect(denied?.code == .deleteDenied)
        #expect(try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Shelf")) } == 2)
        let emptied = try await context.perform { context in
            try context.execute(BatchDeleteRequest(entityName: "Shelf", predicate: try FetchPredicate(format: "name == 'empty'")))
        }
        #expect(emptied == .status(true))
        #expect(try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Shelf")) } == 1)

        // Nullify, where the other side's to-one is required: refused, as Core Data refuses it.
        let owners = try ManagedObjectModel {
            EntityDescription("Owner") {
                AttributeDescription("name", .string)
                RelationshipDescription("pets", toMany: "Pet", inverse: "owner", deleteRule: .nullify)
            }
            EntityDescription("Pet") {
                AttributeDescription("name", .string)
                RelationshipDescription("owner", toOne: "Owner", inverse: "pets", optional: false)
            }
        }
        let second = PersistentStoreCoordinator(managedObjectModel: owners)
        try await second.addPersistentStore(type: .inMemory)
        let petContext = backgroundContext(second)
        try await petContext.perform { context in
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue("Ann", forKey: "name")
            let pet = try context.insertNewObject(forEntityName: "Pet")
            try pet.setValue("Rex", forKey: "name")
            try pet.setValue(owner, forKey: "owner")
            try context.save()
        }
        let required = await #expect(throws: ValidationError.self) {
            try await petContext.perform { try $0.execute(BatchDeleteRequest(entityName: "Owner")) }
        }
        #expect(required?.code == .missingValue && required?.key == "owner")
        #expect(try await backgroundContext(second).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Owner")) } == 1)
    }
}

/// The SQL stores' batch update in SQL (``RelationalBatchUpdate``, one code for SQLite and
/// PostgreSQL) gives the store the general path gives.
@Suite struct SQLiteBatchUpdateTests {
    static let sqlKinds: [StoreType] = [.sqlite] + (PostgresTestServer.isAvailable ? [.postgreSQL] : [])

    static let model = try! ManagedObjectModel {
        EntityDescription("Reading") {
            AttributeDescription("value", .double, optional: true)
            AttributeDescription("label", .string, optional: true)
            AttributeDescription("count", .integer32, defaultValue: 0)
        }
    }

    static func open(_ type: StoreType, at url: URL?) async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: type, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        try await backgroundContext(coordinator).perform { context in
            for index in 0..<50 {
                let reading = try context.insertNewObject(forEntityName: "Reading")
                try reading.setValue(index % 7 == 0 ? nil : Double(index) * 1.5, forKey: "value")
                try reading.setValue(index % 3 == 0 ? "x" : "y", forKey: "label")
                try reading.setValue(Int32(index), forKey: "count")
            }
            try context.save()
        }
        return coordinator
    }

    static func state(_ coordinator: PersistentStoreCoordinator) async throws -> [String] {
        try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading", sortDescriptors: [.ascending("count")])).map { object in
                "\(try object.value(forKey: "count") ?? "-") \(String(describing: try object.value(forKey: "value"))) \(String(describing: try object.value(forKey: "label")))"
            }
        }
    }

    @Test(arguments: sqlKinds)
    func updatesInSQLMatchTheGeneralPath(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = type == .postgreSQL ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent("Readings.sqlite")
        let sqlite = try await Self.open(type, at: url)
        let memory = try await Self.open(.inMemory, at: nil)
        let requests: [BatchUpdateRequest] = [
            BatchUpdateRequest(
                entityName: "Reading", predicate: try FetchPredicate(format: "value != nil AND count < 30"),
                propertiesToUpdate: ["value": .expression(try ValueExpression(format: "value * 2"))]),
            BatchUpdateRequest(
                entityName: "Reading", predicate: try FetchPredicate(format: "label == 'x'"),
                propertiesToUpdate: ["label": .constant("z"), "value": .constant(nil)]),
            BatchUpdateRequest(
                entityName: "Reading", predicate: try FetchPredicate(format: "value > 20"),
                propertiesToUpdate: ["value": .expression(try ValueExpression(format: "value + 0.5"))]),
            // Sets what some rows already hold: those are left alone on both paths.
            BatchUpdateRequest(entityName: "Reading", predicate: nil, propertiesToUpdate: ["label": .constant("y")]),
        ]
        for var request in requests {
            request.resultType = .objectIDs
            let request = request
            let native = try await backgroundContext(sqlite).perform { try $0.execute(request).objectIDs ?? [] }
            let general = try await backgroundContext(memory).perform { try $0.execute(request).objectIDs ?? [] }
            #expect(Set(native.map(\.referenceNumber)) == Set(general.map(\.referenceNumber)), "\(request.propertiesToUpdate)")
            #expect(try await Self.state(sqlite) == Self.state(memory))
        }
        // Arithmetic over objects without a value: the store leaves it to the general path.
        let sparse = BatchUpdateRequest(
            entityName: "Reading", propertiesToUpdate: ["value": .expression(try ValueExpression(format: "value + 1"))])
        _ = try await backgroundContext(sqlite).perform { try $0.execute(sparse) }
        _ = try await backgroundContext(memory).perform { try $0.execute(sparse) }
        #expect(try await Self.state(sqlite) == Self.state(memory))

        // History: one transaction per request, each change naming the properties it set (the
        // general path would name only those whose value changed: this is how the test knows the
        // store ran the update in SQL).
        let sqliteHistory = try await sqlite.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        #expect(sqliteHistory.count == 2 + requests.count)
        #expect(sqliteHistory[1].changes.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["value"] })
        #expect(sqliteHistory[2].changes.allSatisfy { $0.updatedProperties == ["label", "value"] })
        // Versions moved on: a context that read before the update conflicts, as after any save.
        let stale = backgroundContext(sqlite)
        let id = try await stale.perform { context in
            try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading", predicate: try FetchPredicate(format: "count == 1"))).first).objectID
        }
        _ = try await backgroundContext(sqlite).perform { context in
            try context.execute(BatchUpdateRequest(entityName: "Reading", predicate: try FetchPredicate(format: "count == 1"),
                                                   propertiesToUpdate: ["label": .constant("moved")]))
        }
        await #expect(throws: PersistenceError.self) {
            try await stale.perform { context in
                try context.existingObject(with: id).setValue("mine", forKey: "label")
                try context.save()
            }
        }
    }
}

/// The SQL stores' batch delete in SQL (``RelationalBatchDelete``) gives the store, and the
/// history, the general path gives.
@Suite struct SQLiteBatchDeleteTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Team") {
            AttributeDescription("name", .string)
            RelationshipDescription("members", toMany: "Person", inverse: "team")
            RelationshipDescription("lead", toOne: "Person", inverse: "ledTeam")
        }
        EntityDescription("Person") {
            AttributeDescription("name", .string, preservesValueInHistoryOnDeletion: true)
            RelationshipDescription("team", toOne: "Team", inverse: "members")
            RelationshipDescription("ledTeam", toOne: "Team", inverse: "lead")
            RelationshipDescription("manager", toOne: "Person", inverse: "reports")
            RelationshipDescription("reports", toMany: "Person", inverse: "manager")
        }
    }

    static func open(_ type: StoreType, at url: URL?, seed: UInt64) async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: type, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        try await backgroundContext(coordinator).perform { context in
            var random = SplitMix64(seed: seed)
            let teams = try (0..<4).map { index in
                let team = try context.insertNewObject(forEntityName: "Team")
                try team.setValue("team \(index)", forKey: "name")
                return team
            }
            var people: [ManagedObject] = []
            for index in 0..<40 {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValue(["ann", "bob", "al", "cy"][Int.random(in: 0..<4, using: &random)] + " \(index)", forKey: "name")
                if Bool.random(using: &random) { try person.setValue(teams[Int.random(in: 0..<4, using: &random)], forKey: "team") }
                if !people.isEmpty, Bool.random(using: &random) {
                    try person.setValue(people[Int.random(in: 0..<people.count, using: &random)], forKey: "manager")
                }
                people.append(person)
            }
            for team in teams { try team.setValue(people[Int.random(in: 0..<people.count, using: &random)], forKey: "lead") }
            try context.save()
        }
        return coordinator
    }

    static func contents(_ coordinator: PersistentStoreCoordinator) async throws -> [String] {
        try await backgroundContext(coordinator).perform { context in
            var lines: [String] = []
            for entity in ["Team", "Person"] {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
                    var line = "\(entity) \(object.objectID.referenceNumber ?? 0) \(try object.value(forKey: "name") ?? "")"
                    for (key, value) in object.committedValues(forKeys: nil).sorted(by: { $0.key < $1.key }) where key != "name" {
                        switch value {
                        case let id as ManagedObjectID: line += " \(key)=\(id.referenceNumber ?? 0)"
                        case let ids as [ManagedObjectID]: line += " \(key)=\(ids.compactMap(\.referenceNumber).sorted())"
                        default: break
                        }
                    }
                    lines.append(line)
                }
            }
            return lines.sorted()
        }
    }

    static func history(_ coordinator: PersistentStoreCoordinator) async throws -> [[String]] {
        try await coordinator.execute(.fetchHistory(after: nil)).transactions.dropFirst().map { transaction in
            transaction.changes.map { change in
                "\(change.changeType) \(change.changedObjectID.entityName) \(change.changedObjectID.referenceNumber ?? 0) "
                    + "\((change.updatedProperties ?? []).sorted()) \(change.tombstone?.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } ?? [])"
            }.sorted()
        }
    }

    @Test(arguments: SQLiteBatchUpdateTests.sqlKinds)
    func deletesInSQLMatchTheGeneralPath(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = UInt64.random(in: 0...UInt64.max)
        let url = type == .postgreSQL ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent("People.sqlite")
        let sqlite = try await Self.open(type, at: url, seed: seed)
        let memory = try await Self.open(.inMemory, at: nil, seed: seed)
        #expect(try await Self.contents(sqlite) == Self.contents(memory))
        for predicate in ["name BEGINSWITH 'a'", "manager == nil", "TRUEPREDICATE"] {
            var delete = BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: predicate))
            delete.resultType = .objectIDs
            let request = delete
            let native = try await backgroundContext(sqlite).perform { try $0.execute(request).objectIDs ?? [] }
            let general = try await backgroundContext(memory).perform { try $0.execute(request).objectIDs ?? [] }
            #expect(Set(native.map(\.referenceNumber)) == Set(general.map(\.referenceNumber)), "\(predicate), seed \(seed)")
            #expect(try await Self.contents(sqlite) == Self.contents(memory), "\(predicate), seed \(seed)")
        }
        #expect(try await Self.history(sqlite) == Self.history(memory), "seed \(seed)")
        guard type == .sqlite else { return }
        // The SQLite store really deleted in SQL: a fresh context reads the same, and no row of a deleted person is left.
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: .seconds(5))
        #expect(try connection.scalar("SELECT count(*) FROM ZPERSON") == .integer(0))
        #expect(try connection.scalar("SELECT count(*) FROM ZTEAM WHERE ZLEAD IS NOT NULL") == .integer(0))
    }
}
