import Foundation
@testable import Strata
import Testing

/// The names real models make clash (`formats/coredata-sqlite-schema.md` §3, §4, §6), one case
/// each, on models of our own shaped as the real ones that broke: each gets a store, and the
/// names Core Data gives.
@Suite struct SchemaClashTests {
    /// §4: join-table column names come from the generator of the table whose keys they hold.
    /// Two many-to-manys from different entities to `User`, both named `users`, give two
    /// columns `Z_<User>USERS`; the pair wired second gets the suffix, as in a real store:
    /// `Z_12USERS (Z_12REACTIONS, Z_14USERS)` and `Z_9USERS (Z_9SYSTEMMESSAGES, Z_14USERS1)`.
    @Test func joinColumnsThatClashTakeASuffixInWiringOrder() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reaction") {
                RelationshipDescription("users", toMany: "User", inverse: "reactions")
            }
            EntityDescription("SystemMessage") {
                RelationshipDescription("users", toMany: "User", inverse: "systemMessages")
            }
            EntityDescription("User") {
                AttributeDescription("name", .string, optional: true)
                RelationshipDescription("reactions", toMany: "Reaction", inverse: "users")
                RelationshipDescription("systemMessages", toMany: "SystemMessage", inverse: "users")
            }
        }
        let schema = CoreDataSQLiteSchema(model: model)
        #expect(schema.createStatements.contains(
            "CREATE TABLE Z_1USERS ( Z_1REACTIONS INTEGER, Z_3USERS INTEGER, PRIMARY KEY (Z_1REACTIONS, Z_3USERS) )"))
        #expect(schema.createStatements.contains(
            "CREATE TABLE Z_2USERS ( Z_2SYSTEMMESSAGES INTEGER, Z_3USERS1 INTEGER, PRIMARY KEY (Z_2SYSTEMMESSAGES, Z_3USERS1) )"))
        #expect(schema.createStatements.contains("CREATE INDEX Z_2USERS_Z_3USERS1_INDEX ON Z_2USERS (Z_3USERS1, Z_2SYSTEMMESSAGES)"))

        // And the links go where they belong.
        let (directory, coordinator) = try await Self.store(for: model)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            let user = try context.insertNewObject(forEntityName: "User")
            let reaction = try context.insertNewObject(forEntityName: "Reaction")
            let message = try context.insertNewObject(forEntityName: "SystemMessage")
            try reaction.setValue(Set([user]), forKey: "users")
            try message.setValue(Set([user]), forKey: "users")
            try context.save()
        }
        let connection = try SQLiteConnection(url: directory.appendingPathComponent("Store.sqlite"), readOnly: true, create: false, busyTimeout: .seconds(5))
        #expect(try connection.scalar("SELECT count(*) FROM Z_1USERS WHERE Z_3USERS IS NOT NULL") == .integer(1))
        #expect(try connection.scalar("SELECT count(*) FROM Z_2USERS WHERE Z_3USERS1 IS NOT NULL") == .integer(1))
    }

    /// Xcode keeps `ordered="YES"` on a relationship made to-one, and a relationship with
    /// `maxCount="1"` is a to-one whatever its `toMany` says (`NSRelationshipDescription.isToMany`).
    /// Sibling subentities each with such a pair: no `Z_FOK_` column at all (§3: only a to-one
    /// whose inverse is an ordered to-many has one), and the store can be created.
    @Test func anOrderedRelationshipMadeToOneOrdersNothing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Music.xcdatamodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22G120" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Genre" representedClassName="Genre" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="album" optional="YES" toMany="YES" maxCount="1" deletionRule="Nullify" ordered="YES" destinationEntity="Album" inverseName="genre" inverseEntity="Album"/>
                    <relationship name="song" optional="YES" maxCount="1" deletionRule="Nullify" ordered="YES" destinationEntity="Song" inverseName="genre" inverseEntity="Song"/>
                </entity>
                <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Album" representedClassName="Album" parentEntity="Item" syncable="YES">
                    <relationship name="genre" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Genre" inverseName="album" inverseEntity="Genre"/>
                </entity>
                <entity name="Song" representedClassName="Song" parentEntity="Item" syncable="YES">
                    <relationship name="genre" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Genre" inverseName="song" inverseEntity="Genre"/>
                </entity>
            </model>
            """.utf8).write(to: file.appendingPathComponent("contents"))
        let model = try ManagedObjectModel(contentsOf: file)
        let album = try #require(model.entitiesByName["Genre"]?.relationshipsByName["album"])
        #expect(!album.isToMany && !album.isOrdered)
        let schema = CoreDataSQLiteSchema(model: model)
        #expect(schema.createStatements.contains(
            "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZGENRE INTEGER, ZGENRE1 INTEGER, ZTITLE VARCHAR )"))
        #expect(schema.joinTables.isEmpty)
        let (storeDirectory, _) = try await Self.store(for: model)
        try? FileManager.default.removeItem(at: storeDirectory)
    }

    /// §3: sibling subentities' to-ones of one name whose inverses are ordered to-manys: their
    /// `Z_FOK_` columns go through the table's generator too (`Z_FOK_GENRE`, `Z_FOK_GENRE1`), and
    /// each keeps its owner's order.
    @Test func orderColumnsOfSiblingToOnesTakeASuffix() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Genre") {
                RelationshipDescription("albums", toMany: "Album", inverse: "genre", ordered: true)
                RelationshipDescription("songs", toMany: "Song", inverse: "genre", ordered: true)
            }
            EntityDescription("Item", isAbstract: true) { AttributeDescription("title", .string, optional: true) }
            EntityDescription("Album", superentity: "Item") { RelationshipDescription("genre", toOne: "Genre", inverse: "albums") }
            EntityDescription("Song", superentity: "Item") { RelationshipDescription("genre", toOne: "Genre", inverse: "songs") }
        }
        let schema = CoreDataSQLiteSchema(model: model)
        let item = try #require(schema.tables.first { $0.name == "ZITEM" })
        #expect(item.columns.map(\.name) == ["ZGENRE", "ZGENRE1", "Z_FOK_GENRE", "Z_FOK_GENRE1", "ZTITLE"])

        let (directory, coordinator) = try await Self.store(for: model)
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let genreID = try await context.perform { context in
            let genre = try context.insertNewObject(forEntityName: "Genre")
            var songs: [ManagedObject] = []
            for title in ["c", "a", "b"] {
                let song = try context.insertNewObject(forEntityName: "Song")
                try song.setValue(title, forKey: "title")
                songs.append(song)
            }
            try genre.setValue(songs, forKey: "songs")
            try context.save()
            return genre.objectID
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: model)
        try await reader.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))
        let titles = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: reader).perform { context in
            let songs = try context.existingObject(with: genreID).value(forKey: "songs") as? [ManagedObject] ?? []
            return try songs.map { try $0.value(forKey: "title") as? String ?? "" }
        }
        #expect(titles == ["c", "a", "b"])
    }

    /// §6: an `indexed` property and a single-element fetch index on it both give the index
    /// name `Z_<Entity>_<property>`; so do two fetch indexes on one property. Core Data creates
    /// such a model's store with one index of that name (a real model failed with "index
    /// Z_CachedGlucoseObject_startDate already exists"); Strata keeps the first definition.
    @Test func twoIndexDefinitionsWithOneNameMakeOneIndex() async throws {
        var startDate = AttributeDescription(name: "startDate", type: .date, isOptional: true)
        startDate.isIndexed = true
        let entity = EntityDescription(
            name: "CachedGlucoseObject", attributes: [startDate, AttributeDescription(name: "value", type: .double, isOptional: true)],
            indexes: [
                FetchIndexDescription(name: "byStartDate", elements: [.init("startDate", ascending: false)]),
                FetchIndexDescription(name: "byStartDateAscending", elements: [.init("startDate")]),
                FetchIndexDescription(name: "value", elements: [.init("startDate")]),
                FetchIndexDescription(name: "byValue", elements: [.init("value")]),
            ])
        let model = try ManagedObjectModel(entities: [entity])
        let names = CoreDataSQLiteSchema(model: model).indexes.map(\.name)
        #expect(names.sorted() == [
            "Z_CachedGlucoseObject_byStartDate", "Z_CachedGlucoseObject_byStartDateAscending", "Z_CachedGlucoseObject_byValue",
            "Z_CachedGlucoseObject_startDate", "Z_CachedGlucoseObject_value",
        ])
        #expect(CoreDataSQLiteSchema(model: model).indexes.first { $0.name == "Z_CachedGlucoseObject_startDate" }?.createStatement
            == "CREATE INDEX Z_CachedGlucoseObject_startDate ON ZCACHEDGLUCOSEOBJECT (ZSTARTDATE COLLATE BINARY ASC)")
        let (directory, _) = try await Self.store(for: model)
        try? FileManager.default.removeItem(at: directory)
    }

    /// A store Core Data wrote is right by definition: where its file has a many-to-many's
    /// join table under the other side's name (§5's wiring order decides the owner, and is not
    /// certain for every model), or its columns with other suffixes, Strata reads and writes the
    /// links where the file keeps them, instead of calling the table missing.
    @Test func aJoinTableTheOtherSideOwnsInTheFileIsUsedWhereItIs() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", toMany: "Book", inverse: "authors")
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string)
                RelationshipDescription("authors", toMany: "Author", inverse: "books", ordered: true)
            }
        }
        #expect(CoreDataSQLiteSchema(model: model).joinTables.map(\.name) == ["Z_1BOOKS"])
        let (directory, coordinator) = try await Self.store(for: model)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Store.sqlite")
        let bookID = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Emma", forKey: "title")
            var authors: [ManagedObject] = []
            for name in ["Jane", "Ann"] {
                let author = try context.insertNewObject(forEntityName: "Author")
                try author.setValue(name, forKey: "name")
                authors.append(author)
            }
            try book.setValue(authors, forKey: "authors")
            try context.save()
            return book.objectID
        }
        try await coordinator.removePersistentStore(try #require(coordinator.persistentStores.first))
        // The same links as Core Data would keep them had `Book.authors` been wired first.
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: .seconds(5))
        try connection.execute("""
            ALTER TABLE Z_1BOOKS RENAME TO Z_2AUTHORS; ALTER TABLE Z_2AUTHORS RENAME COLUMN Z_2BOOKS TO Z_2BOOKS1
            """)
        let adopted = CoreDataSQLiteSchema(model: model).adopting(existingTables: try connection.tableColumns())
        #expect(adopted.joinTables.map(\.name) == ["Z_2AUTHORS"])
        #expect(adopted.joinTables.first?.columns == ["Z_2BOOKS1", "Z_1AUTHORS", "Z_FOK_1AUTHORS"])

        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try await reopened.addPersistentStore(type: .sqlite, at: url)
        let names = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: reopened).perform { context in
            let book = try context.existingObject(with: bookID)
            let authors = try book.value(forKey: "authors") as? [ManagedObject] ?? []
            let third = try context.insertNewObject(forEntityName: "Author")
            try third.setValue("Kit", forKey: "name")
            try book.setValue(authors + [third], forKey: "authors")
            try context.save()
            return try authors.map { try $0.value(forKey: "name") as? String ?? "" }
        }
        #expect(names == ["Jane", "Ann"], "read in order from the table the file has")
        #expect(try connection.scalar("SELECT count(*) FROM Z_2AUTHORS") == .integer(3), "written where the file keeps the links")
    }

    /// Every version of every real model in the fixtures gets a SQLite store whose objects are
    /// those its schema derives (the rules are held to real stores elsewhere).
    @Test(.enabled(if: Fixtures.hasSharedXcodeModels, "the shared Xcode fixtures are not beside the project"))
    func everyRealModelVersionGetsAStore() async throws {
        var versions = 0
        for bundleURL in Fixtures.sharedBundles() {
            let bundle = try ModelBundle(contentsOf: bundleURL)
            for version in bundle.versions {
                let schema = CoreDataSQLiteSchema(model: version.model)
                GeneratedSchemaTests.checkRules(schema, version.model, seed: 0)
                let (directory, _) = try await Self.store(for: version.model)
                defer { try? FileManager.default.removeItem(at: directory) }
                try GeneratedSchemaTests.checkFile(at: directory.appendingPathComponent("Store.sqlite"), against: schema, seed: 0)
                versions += 1
            }
        }
        #expect(versions >= 30)
    }

    static func store(for model: ManagedObjectModel) async throws -> (URL, PersistentStoreCoordinator) {
        let directory = try Fixtures.temporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))
        return (directory, coordinator)
    }
}
