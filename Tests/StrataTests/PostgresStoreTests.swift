import Foundation
import Logging
import PostgresNIO
@testable import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// What the PostgreSQL store does beyond the conformance suites: several coordinators (app
/// servers) on one database, hostile names and values, and bad URLs and servers.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresStoreTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Account") {
            AttributeDescription("email", .string)
            AttributeDescription("balance", .integer64, defaultValue: 0)
            UniquenessConstraint("email")
        }
    }

    /// A coordinator on `url`, as one app server would open it.
    static func server(_ url: URL, model: ManagedObjectModel = model, remote: Bool = true) async throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url, options: [PersistentStoreOption.remoteChangeNotifications: remote])
        return coordinator
    }

    static func balances(_ coordinator: PersistentStoreCoordinator) async throws -> [String: Int64] {
        try await backgroundContext(coordinator).perform { context in
            var balances: [String: Int64] = [:]
            for account in try context.fetch(FetchRequest<ManagedObject>(entityName: "Account")) {
                balances[try account.value(forKey: "email") as? String ?? "?"] = try account.value(forKey: "balance") as? Int64
            }
            return balances
        }
    }

    static func open(_ email: String, balance: Int64, in coordinator: PersistentStoreCoordinator) async throws -> ManagedObjectID {
        try await backgroundContext(coordinator).perform { context in
            let account = try context.insertNewObject(forEntityName: "Account")
            try account.setValue(email, forKey: "email")
            try account.setValue(balance, forKey: "balance")
            try context.save()
            return account.objectID
        }
    }

    /// A database that goes away gives a typed error, never a hang: a statement the driver never
    /// answers (postgres-nio can lose one written just as its connection closes) ends its
    /// synchronous wait with `.unreachable` when the connection closes.
    @Test func aWaitEndsWhenItsConnectionCloses() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let connection = try await PostgresConnection.connect(
            configuration: try PostgresLocation(url: url).configuration(), id: 9, logger: Logger(label: "strata.tests.waits"))
        let answered = connection.eventLoop.makePromise(of: Int.self)
        connection.eventLoop.scheduleTask(in: .milliseconds(20)) { answered.succeed(7) }
        #expect(try connection.waitUnlessClosed(answered.futureResult) == 7, "an answer that comes is returned")

        let unanswered = connection.eventLoop.makePromise(of: Int.self)
        connection.eventLoop.scheduleTask(in: .milliseconds(20)) { _ = connection.close() as EventLoopFuture<Void> }
        let error = #expect(throws: PostgresStoreError.self) { try connection.waitUnlessClosed(unanswered.futureResult) }
        #expect(error?.code == .unreachable)
        unanswered.fail(CancellationError())  // NIO wants every promise completed
        let late = connection.eventLoop.makePromise(of: Int.self)
        #expect(throws: PostgresStoreError.self, "a wait on a connection closed already ends at once") {
            try connection.waitUnlessClosed(late.futureResult)
        }
        late.fail(CancellationError())
    }

    @Test func twoServersShareOneStoreAndHearEachOthersSaves() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let first = try await Self.server(url)
        let second = try await Self.server(url)
        #expect(first.persistentStores[0].identifier == second.persistentStores[0].identifier, "one store, one UUID")
        let heard = second.remoteChangeNotifications

        let id = try await Self.open("ada@example.org", balance: 10, in: first)
        let change = try #require(await RemoteChangeTests.next(heard, within: 10), "the second server heard the first one's save")
        #expect(change.storeIdentifier == second.persistentStores[0].identifier)
        #expect(try await Self.balances(second) == ["ada@example.org": 10])
        // The object's URI means the same object on either server.
        let uri = id.uriRepresentation()
        let seen = try await backgroundContext(second).perform { context in
            let id = try #require(context.persistentStoreCoordinator!.managedObjectID(forURIRepresentation: uri))
            return try context.existingObject(with: id).value(forKey: "balance") as? Int64
        }
        #expect(seen == 10)
    }

    /// A context pinned to its query generation (`setQueryGenerationFrom(.current)`) reads one
    /// state of the database while another server commits; unpinned (Core Data's default), the
    /// same context's next read sees the other server's save.
    @Test func aPinnedContextKeepsItsGenerationWhileAnotherServerCommits() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let first = try await Self.server(url, remote: false)
        _ = try await Self.open("ada@example.org", balance: 10, in: first)
        let second = try await Self.server(url, remote: false)
        let reader = backgroundContext(second)
        let before = try await reader.perform { context in
            try context.setQueryGenerationFrom(.current)
            return try context.count(for: FetchRequest<ManagedObject>(entityName: "Account"))
        }
        _ = try await Self.open("grace@example.org", balance: 20, in: first)
        let pinned = try await reader.perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Account")) }
        #expect(before == 1 && pinned == 1, "a pinned context reads one state of the database until it moves on")
        // Another server's save reaches this one by its notification (docs/PostgresStore.md,
        // "Other servers' saves"), a moment after the commit: under load, later than the next read.
        var unpinned = 0
        for _ in 0..<200 {
            unpinned = try await reader.perform { context in
                try context.setQueryGenerationFrom(nil)
                return try context.count(for: FetchRequest<ManagedObject>(entityName: "Account"))
            }
            if unpinned == 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(unpinned == 2, "unpinned, it reads the latest state, another server's save included")
    }

    @Test func anUpdateAnotherServerOvertookIsAConflict() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let first = try await Self.server(url, remote: false)
        let id = try await Self.open("ada@example.org", balance: 10, in: first)
        let second = try await Self.server(url, remote: false)
        let late = backgroundContext(second)
        try await late.perform { context in
            try context.existingObject(with: id).setValue(Int64(5), forKey: "balance")
        }
        try await backgroundContext(first).perform { context in
            try context.existingObject(with: id).setValue(Int64(30), forKey: "balance")
            try context.save()
        }
        let error = await #expect(throws: PersistenceError.self) {
            try await late.perform { try $0.save() }
        }
        #expect(error?.code == .conflict)
        #expect(try await Self.balances(second) == ["ada@example.org": 30], "the overtaken save left nothing")
        // Under a merge policy the late context's change goes over the stored one.
        try await late.perform { context in
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
        }
        #expect(try await Self.balances(first) == ["ada@example.org": 5])
    }

    @Test func aUniqueValueTakenOnAnotherServerIsAConstraintConflict() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let first = try await Self.server(url, remote: false)
        let second = try await Self.server(url, remote: false)
        _ = try await Self.open("ada@example.org", balance: 10, in: first)
        let error = await #expect(throws: PersistenceError.self) {
            _ = try await Self.open("ada@example.org", balance: 99, in: second)
        }
        #expect(error?.code == .constraintConflict)
        #expect(error?.constraintConflicts.first?.constraint == ["email"])
        #expect(try await Self.balances(first) == ["ada@example.org": 10])
    }

    @Test func serversSavingAtOnceNeverShareAReferenceNumber() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let servers = [try await Self.server(url, remote: false), try await Self.server(url, remote: false), try await Self.server(url, remote: false)]
        let ids = try await withThrowingTaskGroup(of: [ManagedObjectID].self) { group in
            for (number, server) in servers.enumerated() {
                group.addTask {
                    var ids: [ManagedObjectID] = []
                    for round in 0..<10 {
                        ids += try await backgroundContext(server).perform { context in
                            let accounts = try (0..<5).map { index in
                                let account = try context.insertNewObject(forEntityName: "Account")
                                try account.setValue("s\(number)-r\(round)-\(index)@example.org", forKey: "email")
                                return account
                            }
                            try context.save()
                            return accounts.map(\.objectID)
                        }
                    }
                    return ids
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 150 && Set(ids.compactMap(\.referenceNumber)).count == 150)
        #expect(try await Self.balances(servers[0]).count == 150)
    }

    @Test func hostileNamesAndValuesStayNamesAndValues() async throws {
        let hostile = "x\"); DROP SCHEMA public CASCADE; --"
        let model = try ManagedObjectModel {
            EntityDescription("Drop\"Table") {
                AttributeDescription("select", .string)
                AttributeDescription("where\"", .string, optional: true)
            }
        }
        let base = try await PostgresTestServer.newStoreURL().absoluteString
        let url = try #require(URL(string: base + "_" + "a%22b%3B%20DROP%20TABLE%20x"), "a schema name with a quote, a semicolon and a space")
        let coordinator = try await Self.server(url, model: model, remote: true)
        let values = [hostile, "$1", "'; SELECT pg_sleep(10); --", "\\\\", "é\u{301}😀"]
        try await backgroundContext(coordinator).perform { context in
            for value in values {
                let object = try context.insertNewObject(forEntityName: "Drop\"Table")
                try object.setValue(value, forKey: "select")
                try object.setValue(value, forKey: "where\"")
            }
            try context.save()
        }
        let reopened = try await Self.server(url, model: model, remote: false)
        let read = try await backgroundContext(reopened).perform { context in
            let request = FetchRequest<ManagedObject>(
                entityName: "Drop\"Table", predicate: try FetchPredicate(format: "select == %@", hostile))
            let matching = try context.fetch(request).count
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Drop\"Table")).map {
                [try $0.value(forKey: "select") as? String, try $0.value(forKey: "where\"") as? String]
            }
            return (matching, all)
        }
        #expect(read.0 == 1)
        #expect(Set(read.1.map { $0[0] ?? "" }) == Set(values) && read.1.allSatisfy { $0[0] == $0[1] })
        let schemas = try await PostgresTestServer.rows("SELECT nspname FROM pg_namespace WHERE nspname = 'public'")
        #expect(schemas.count == 1, "nothing was run as SQL")
    }

    @Test func aStringPostgreSQLCannotHoldIsATypedErrorAndSavesNothing() async throws {
        let coordinator = try await Self.server(try await PostgresTestServer.newStoreURL(), remote: false)
        let error = await #expect(throws: PostgresStoreError.self) {
            _ = try await Self.open("nul\u{0}@example.org", balance: 1, in: coordinator)
        }
        #expect(error?.code == .server && error?.sqlState?.hasPrefix("22") == true, "a data exception: \(String(describing: error))")
        #expect(try await Self.balances(coordinator).isEmpty)
    }

    /// A count the store can answer exactly runs in SQL, reading no object; one it cannot (a
    /// string operator with options) is the context's, over a fetch; both agree.
    @Test func countsRunInSQLWhenThePredicateTranslatesExactly() async throws {
        let coordinator = try await Self.server(try await PostgresTestServer.newStoreURL())
        for index in 0..<30 { _ = try await Self.open("user\(index)@example.com", balance: Int64(index), in: coordinator) }
        let (inSQL, considered, byContext, consideredByContext) = try await backgroundContext(coordinator).perform { context in
            let inSQL = try context.count(for: FetchRequest<ManagedObject>(entityName: "Account", predicate: try FetchPredicate(format: "balance >= 10")))
            let considered = context.graph.rowsConsidered
            let byContext = try context.count(
                for: FetchRequest<ManagedObject>(entityName: "Account", predicate: try FetchPredicate(format: "email BEGINSWITH[c] 'USER1'")))
            return (inSQL, considered, byContext, context.graph.rowsConsidered - considered)
        }
        #expect(inSQL == 20 && considered == 0)
        #expect(byContext == 11 && consideredByContext == 30)
    }

    /// Core Data's indexes keep text in byte order (`COLLATE BINARY` in its SQLite schema, schema
    /// page), as the store sorts strings (`COLLATE "C"`): a text column's index is made in that
    /// collation, so that the server walks it for a sorted page rather than sorting the table,
    /// and an integer column's has none.
    @Test func textIndexesKeepByteOrderAndServeASortedPage() async throws {
        let model = try IndexTests.model()
        let url = try await PostgresTestServer.newStoreURL()
        let coordinator = try await Self.server(url, model: model)
        try await backgroundContext(coordinator).perform { context in
            for number in 0..<2_000 {
                let item = try context.insertNewObject(forEntityName: number % 3 == 0 ? "Special" : "Item")
                try item.setValue("code \(number)", forKey: "code")
                try item.setValue(Int32(number % 50), forKey: "rank")
            }
            try context.save()
        }
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        // The definitions of this schema's indexes only, filtered here: a filter on `pg_indexes`'
        // text may make the server read every schema's, among them those other tests are dropping
        // ("could not open relation with OID …").
        let definitions = try await PostgresTestServer.rows(
            "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(schema)'"
        ).compactMap { $0[0] }.filter { $0.contains("ZCODE") || $0.contains("ZRANK") }
        #expect(definitions.count >= 2)
        for definition in definitions {
            #expect(definition.contains("ZCODE") == definition.contains("COLLATE \"C\""), "\(definition)")
        }
        try await PostgresTestServer.execute("ANALYZE \"\(schema)\".\"ZITEM\"")
        let plan = try await PostgresTestServer.rows(
            "EXPLAIN SELECT t.\"Z_PK\" FROM \"\(schema)\".\"ZITEM\" t ORDER BY t.\"ZCODE\" COLLATE \"C\", t.\"Z_PK\" LIMIT 20")
        #expect(plan.contains { $0[0]?.contains("Index Scan") == true }, "\(plan)")
        let page = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [.ascending("code")])
            request.fetchLimit = 3
            return try context.fetch(request).map { try $0.value(forKey: "code") as? String ?? "" }
        }
        #expect(page == ["code 0", "code 1", "code 10"])
    }

    /// A sorted, windowed fetch the store can answer runs in SQL: the context considers only
    /// the rows in the window. Strings sort by code point, as the context sorts them.
    @Test func sortsAndWindowsRunInSQL() async throws {
        let coordinator = try await Self.server(try await PostgresTestServer.newStoreURL())
        for (index, email) in ["b@x", "B@x", "a@x", "é@x", "A@x", "c@x"].enumerated() {
            _ = try await Self.open(email, balance: Int64(index * 10), in: coordinator)
        }
        let (window, considered, byEmail) = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<ManagedObject>(entityName: "Account", predicate: try FetchPredicate(format: "balance >= 10"))
            request.sortDescriptors = [.descending("balance")]
            (request.fetchOffset, request.fetchLimit) = (1, 2)
            let window = try context.fetch(request).map { try $0.value(forKey: "email") as? String ?? "" }
            let considered = context.graph.rowsConsidered
            let byEmail = try context.fetch(FetchRequest<ManagedObject>(entityName: "Account", sortDescriptors: [.ascending("email")]))
                .map { try $0.value(forKey: "email") as? String ?? "" }
            return (window, considered, byEmail)
        }
        #expect(window == ["A@x", "é@x"])
        #expect(considered == 2)
        #expect(byEmail == ["A@x", "B@x", "a@x", "b@x", "c@x", "é@x"])
    }

    /// A join-table link to an object no longer stored (a save linked it while another server's
    /// delete of it committed: there are no foreign keys) reads as no link, as Core Data's joins
    /// read it; the stress suites met one under ThreadSanitizer.
    @Test func aLinkToAnObjectNoLongerStoredReadsAsNoLink() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Tag") {
                AttributeDescription("name", .string)
                RelationshipDescription("items", toMany: "Item", inverse: "tags")
            }
            EntityDescription("Item") {
                AttributeDescription("name", .string)
                RelationshipDescription("tags", toMany: "Tag", inverse: "items")
            }
        }
        let url = try await PostgresTestServer.newStoreURL()
        let coordinator = try await Self.server(url, model: model)
        let tag = try await backgroundContext(coordinator).perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("kept", forKey: "name")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValue("t", forKey: "name")
            try tag.setValue(Set([item]), forKey: "items")
            try context.save()
            return tag.objectID
        }
        let mapping = CoreDataTableMapping(model: model)
        let toMany = try #require(mapping.entities["Tag"]?.toManys.first)
        guard case .joinTable(let join, let own, let other, _, _, _) = toMany.storage else {
            Issue.record("a many-to-many has a join table")
            return
        }
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        try await PostgresTestServer.execute(
            "INSERT INTO \"\(schema)\".\"\(join)\" (\"\(own)\", \"\(other)\") VALUES (\(tag.referenceNumber ?? 0), 999)")
        let names = try await backgroundContext(coordinator).perform { context in
            let items = try #require(try context.existingObject(with: tag).value(forKey: "items") as? Set<ManagedObject>)
            return try items.map { try $0.value(forKey: "name") as? String ?? "" }
        }
        #expect(names == ["kept"])

        // A save that links the deleted object (through the store's contract, as a save racing
        // the delete would) writes no link to it: none outlives its target.
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        let item = try await backgroundContext(coordinator).perform { context in
            try #require(try context.existingObject(with: tag).value(forKey: "items") as? Set<ManagedObject>).first?.objectID
        }
        let kept = try #require(item)
        let gone = store.newObjectID(for: try #require(model.entitiesByName["Item"]), referenceObject: Int64(998))
        let late = try #require(try store.obtainPermanentIDs(for: [ManagedObjectID.temporary(in: .make(store: nil, entityName: "Tag"))]).first)
        _ = try store.execute(
            .save(
                SaveChangesRequest(
                    insertedObjects: [
                        IncrementalStoreNode(
                            objectID: late, attributeValues: ["name": .string("late")], relatedObjectIDs: ["items": [kept, gone]], version: 0)
                    ], updatedObjects: [], deletedObjects: [:])), with: nil)
        let links = try await PostgresTestServer.rows(
            "SELECT \"\(other)\"::text FROM \"\(schema)\".\"\(join)\" WHERE \"\(own)\" = \(late.referenceNumber ?? 0)")
        #expect(links.map { $0[0] } == ["\(kept.referenceNumber ?? 0)"], "the link to the stored item, none to the missing one")
    }

    @Test func badURLsAndServersAreTypedErrors() async throws {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let withPassword = await #expect(throws: PostgresStoreError.self) {
            try await coordinator.addPersistentStore(type: .postgreSQL, at: URL(string: "postgres://app:hunter2@localhost/db")!)
        }
        #expect(withPassword?.code == .invalidURL)
        #expect(withPassword?.description.contains("hunter2") == false, "a password is never shown")
        let wrongScheme = await #expect(throws: PostgresStoreError.self) {
            try await coordinator.addPersistentStore(type: .postgreSQL, at: URL(string: "mysql://app@localhost/db")!)
        }
        #expect(wrongScheme?.code == .invalidURL)
        let unknownOption = await #expect(throws: PostgresStoreError.self) {
            try await coordinator.addPersistentStore(type: .postgreSQL, at: URL(string: "postgres://app@localhost/db?sslmode=require")!)
        }
        #expect(unknownOption?.code == .invalidURL)
        // A port no server listens on.
        let closed = await #expect(throws: PostgresStoreError.self) {
            try await coordinator.addPersistentStore(type: .postgreSQL, at: URL(string: "postgres://app@127.0.0.1:1/db")!)
        }
        #expect(closed?.code == .unreachable)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aSchemaWithOtherTablesIsNotTakenOver() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        try await PostgresTestServer.execute("CREATE SCHEMA \"\(schema)\"")
        try await PostgresTestServer.execute("CREATE TABLE \"\(schema)\".orders (id int)")
        let error = await #expect(throws: PostgresStoreError.self) {
            _ = try await Self.server(url, remote: false)
        }
        #expect(error?.code == .notAStore)
        let tables = try await PostgresTestServer.rows("SELECT tablename FROM pg_tables WHERE schemaname = '\(schema)'")
        #expect(tables.map { $0.first ?? nil } == ["orders"], "nothing was added beside the table that was there")
    }

    /// A row that names an object of an entity outside a relationship's destination (written by
    /// hand, or damaged) fails the read with a typed error: a typed accessor would trap on it.
    @Test func aTargetOfAnEntityOutsideTheDestinationIsATypedError() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Animal") {
                AttributeDescription("name", .string)
                RelationshipDescription("owner", toOne: "Person", inverse: "pets")
            }
            EntityDescription("Dog", superentity: "Animal")
            EntityDescription("Car") { AttributeDescription("plate", .string) }
            EntityDescription("Person") {
                RelationshipDescription("favorite", toOne: "Animal", inverse: nil, optional: true)
                RelationshipDescription("pets", toMany: "Animal", inverse: "owner")
            }
        }
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let coordinator = try await Self.server(url, model: model, remote: false)
        try await backgroundContext(coordinator).perform { context in
            let person = try context.insertNewObject(forEntityName: "Person")
            let dog = try context.insertNewObject(forEntityName: "Dog")
            try dog.setValue("Rex", forKey: "name")
            try dog.setValue(person, forKey: "owner")
            try person.setValue(dog, forKey: "favorite")
            try context.insertNewObject(forEntityName: "Car").setValue("B-1", forKey: "plate")
            try context.save()
        }
        func readPeople() async throws {
            let reader = try await Self.server(url, model: model, remote: false)
            try await backgroundContext(reader).perform { context in
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    _ = try person.value(forKey: "favorite")
                    _ = try person.value(forKey: "pets")
                }
            }
        }
        try await readPeople()
        let car = try #require(try await PostgresTestServer.rows("SELECT \"Z_ENT\"::text FROM \"\(schema)\".\"Z_PRIMARYKEY\" WHERE \"Z_NAME\" = 'Car'").first?[0])
        let column = try #require(
            try await PostgresTestServer.rows(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = '\(schema)' AND table_name = 'ZPERSON' AND column_name LIKE 'Z%\\_FAVORITE'"
            ).first?[0])
        try await PostgresTestServer.execute("UPDATE \"\(schema)\".\"ZPERSON\" SET \"\(column)\" = \(car)")
        let toOne = await #expect(throws: PostgresStoreError.self) { try await readPeople() }
        #expect(toOne?.code == .damagedRow)

        try await PostgresTestServer.execute("UPDATE \"\(schema)\".\"ZPERSON\" SET \"\(column)\" = NULL, \"ZFAVORITE\" = NULL")
        try await readPeople()
        try await PostgresTestServer.execute("UPDATE \"\(schema)\".\"ZANIMAL\" SET \"Z_ENT\" = \(car)")
        let toMany = await #expect(throws: PostgresStoreError.self) { try await readPeople() }
        #expect(toMany?.code == .damagedRow)
    }

    /// Prepared statements take their parameters' types from casts of the values bound; a `$1`
    /// inside a quoted name or literal is no parameter.
    @Test func parametersAreCastToTheirValuesTypesOutsideQuotes() {
        let sql = #"SELECT "a$1", '$2' FROM t WHERE x = $1 AND y = $2 AND z IN ($3, $4) AND "q""$1" = $10"#
        let typed = PostgresSQL.typedPlaceholders(sql, [.integer(1), .real(2), .text("3"), .null, .blob(Data()), .null, .null, .null, .null, .text("10")])
        #expect(typed == #"SELECT "a$1", '$2' FROM t WHERE x = $1::bigint AND y = $2::double precision AND z IN ($3::text, $4) AND "q""$1" = $10::text"#)
        // Names and literals outside ASCII; a `$` with no number, a number past the values, $0.
        let unicode = #"SELECT "é$1", 'ü''$2' FROM "ß" WHERE x = $1 AND y = $2 AND "𝒳" = $ AND z = $99 AND w = $0 AND v = $1"#
        #expect(
            PostgresSQL.typedPlaceholders(unicode, [.text("a"), .integer(2)])
                == #"SELECT "é$1", 'ü''$2' FROM "ß" WHERE x = $1::text AND y = $2::bigint AND "𝒳" = $ AND z = $99 AND w = $0 AND v = $1::text"#)
    }

    /// Contexts reading one generation at once each read on a connection of their own, in the
    /// snapshot the first one exported: what another server commits meanwhile is in none of them.
    @Test func readersOfOneGenerationShareItsSnapshotOnConnectionsOfTheirOwn() async throws {
        let url = try await PostgresTestServer.newStoreURL()
        defer { Task { try? await PostgresTestServer.dropSchema(of: url) } }
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let coordinator = try await Self.server(url, remote: false)
        _ = try await Self.open("a@example.com", balance: 1, in: coordinator)
        let store = try #require(coordinator.persistentStores.first as? PostgresStore)
        let snapshot = try #require(try store.newSnapshot() as? PostgresSnapshot)
        snapshot.contextsBeganHolding()  // as a context reading it does: no idle release between reads
        let count = "SELECT count(*), pg_backend_pid() FROM \"\(schema)\".\"ZACCOUNT\""
        func read(_ connection: PostgresConnection) throws -> (count: Int64, backend: Int64) {
            let cells = try #require(try connection.rows(count, logger: Logger(label: "test")).first).makeRandomAccess()
            return (try cells[0].int64() ?? -1, Int64(try cells[1].decode(Int32.self)))
        }
        let first = try snapshot.read(read)
        _ = try await Self.open("b@example.com", balance: 2, in: try await Self.server(url, remote: false))

        let (outer, inner) = try snapshot.read { outer in (try read(outer), try snapshot.read(read)) }
        #expect(first.count == 1 && outer.count == 1 && inner.count == 1, "the snapshot of the first read, on every connection")
        #expect(outer.backend != inner.backend, "a second reader at once reads on a connection of its own")
        let fresh = try #require(try store.newSnapshot() as? PostgresSnapshot)
        #expect(try fresh.read(read).count == 2)
    }
}
