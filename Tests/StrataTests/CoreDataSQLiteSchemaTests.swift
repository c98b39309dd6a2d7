import Foundation
@testable import Strata
import Testing

/// The schema Strata derives from a model is the one Core Data created for it
/// (`formats/coredata-sqlite-schema.md`): checked against the real stores in
/// `../shared/fixtures/sqlite`, and rule by rule on models of our own.
@Suite struct CoreDataSQLiteSchemaTests {
    static let stores = CoreDataStoreHashTests.stores.map(\.store)
        + [
            "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite",
            // §4's suffixed join columns (`Z_9USERS (Z_9SYSTEMMESSAGES, Z_14USERS1)`), ordered
            // many-to-manys, a hierarchy of seven entities in one table.
            "wireapp__wire-ios-data-model/Tests/Resources/store2-21-1.wiredatabase",
        ]

    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"), arguments: stores)
    func theFixtureStoresHaveTheSchemaStrataDerives(_ store: String) async throws {
        let url = Fixtures.sharedSQLiteStores.appendingPathComponent(store)
        let model = try ManagedObjectModel(coreDataModelCache: try await CoreDataStoreReader.modelCache(ofStoreAt: url))
        let real = try await CoreDataStoreReader.schema(ofStoreAt: url)
        // Core Data before framework 800 named modelled indexes otherwise (§6).
        let schema = CoreDataSQLiteSchema(model: model, frameworkVersion: try await CoreDataStoreReader.metadata(ofStoreAt: url).framework)
        // Z_NAME may keep an entity's name from before a migration renamed it (§1): numbers and supers must agree.
        #expect(schema.entities.map(\.number) == real.entities.map(\.number), "\(store)")
        #expect(schema.entities.map(\.superNumber) == real.entities.map(\.super), "\(store)")
        // Core Data's own objects only: not persistent history's (A…) or SQLite's automatic
        // indexes. Derived attributes' triggers too (§7: SampleModel2's `pagesCount` count).
        let expected = Set(real.objects.filter { !$0.name.hasPrefix("A") && !$0.name.hasPrefix("Z_TRANSACTION") }.map(\.sql))
        let derived = Set(schema.createStatements)
        #expect(derived.subtracting(expected).sorted() == [], "derived, not in \(store)")
        #expect(expected.subtracting(derived).sorted() == [], "in \(store), not derived")
    }

    /// §1, §3, §4, §6 on a model of our own: numbering, one table per hierarchy with suffixed
    /// clashing columns, foreign keys with entity columns, ordering columns, join tables, indexes.
    @Test func theRulesOnAModelOfOurOwn() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Shelf") {
                AttributeDescription("label", .string)
                RelationshipDescription("items", toMany: "Item", inverse: "shelf", ordered: true)
            }
            EntityDescription("Item", isAbstract: true) {
                AttributeDescription("added", .date)
                RelationshipDescription("shelf", toOne: "Shelf", inverse: "items")
                FetchIndexDescription("byAdded", "added")
            }
            EntityDescription("Note", superentity: "Item") { AttributeDescription("text", .string) }
            EntityDescription("Book", superentity: "Item") {
                AttributeDescription("text", .string)
                AttributeDescription("price", .decimal)
                AttributeDescription("cover", .binaryData, optional: true)
                RelationshipDescription("authors", toMany: "author", inverse: "books")
                UniquenessConstraint("price")
            }
            EntityDescription("author") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", toMany: "Book", inverse: "authors")
                RelationshipDescription("favourite", toOne: "Item")
            }
        }
        let schema = CoreDataSQLiteSchema(model: model)
        // Roots in case-insensitive name order, each followed by its subtree in name order.
        #expect(schema.entities.map { "\($0.number) \($0.name) \($0.superNumber) \($0.table)" } == [
            "1 author 0 ZAUTHOR", "2 Item 0 ZITEM", "3 Book 2 ZITEM", "4 Note 2 ZITEM", "5 Shelf 0 ZSHELF",
        ])
        #expect(schema.createStatements.contains(
            "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSHELF INTEGER, Z_FOK_SHELF INTEGER, "
                + "ZADDED TIMESTAMP, ZPRICE DECIMAL, ZTEXT VARCHAR, ZTEXT1 VARCHAR, ZCOVER BLOB )"))
        #expect(schema.createStatements.contains(
            "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFAVOURITE INTEGER, Z2_FAVOURITE INTEGER, ZNAME VARCHAR )"))
        #expect(schema.joinTables.map(\.name) == ["Z_1BOOKS"])
        #expect(schema.createStatements.contains("CREATE TABLE Z_1BOOKS ( Z_1AUTHORS INTEGER, Z_3BOOKS INTEGER, PRIMARY KEY (Z_1AUTHORS, Z_3BOOKS) )"))
        for statement in [
            "CREATE INDEX ZITEM_ZSHELF_INDEX ON ZITEM (ZSHELF)", "CREATE INDEX ZITEM_Z_ENT_INDEX ON ZITEM (Z_ENT)",
            "CREATE INDEX ZAUTHOR_ZFAVOURITE_INDEX ON ZAUTHOR (ZFAVOURITE)", "CREATE INDEX Z_1BOOKS_Z_3BOOKS_INDEX ON Z_1BOOKS (Z_3BOOKS, Z_1AUTHORS)",
            "CREATE INDEX Z_Item_byAdded ON ZITEM (ZADDED COLLATE BINARY ASC)", "CREATE INDEX Z_Item_added ON ZITEM (ZADDED COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Book_UNIQUE_price ON ZITEM (ZPRICE COLLATE BINARY ASC)",
        ] {
            #expect(schema.createStatements.contains(statement), "\(statement)")
        }
    }

    /// §5's hash: Foundation's 10.4 string hash, four UTF-16 units at a time.
    @Test func theWiringHashIsFoundations() {
        // h = len = 1; one unit: h = 1*257 + 97 = 354; h += h << 1 = 1062.
        #expect(CoreDataSQLiteSchema.foundationHash("a") == 1062)
        var h: UInt32 = 4
        h = h &* 67_503_105 &+ 98 &* 16_974_593 &+ 111 &* 66_049 &+ 111 &* 257 &+ 107
        #expect(CoreDataSQLiteSchema.foundationHash("book") == h &+ (h << 4))
    }

    /// §4/§5 on a real model: DuckDuckGo's bookmarks pair `favorites` (ordered) with
    /// `favoriteFolders` on one entity, and Core Data names the join table after `favorites`
    /// (`Z_1FAVORITES`, not `Z_1FAVORITEFOLDERS`), as its stores show. Also the ordered
    /// `children` ↔ `parent` pair's `Z_FOK_PARENT`.
    @Test(.enabled(if: Fixtures.hasSharedXcodeModels, "the shared Xcode fixtures are not beside the project"))
    func theWiringOrderNamesARealJoinTableAsCoreDataDid() throws {
        let bundle = try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(
            "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld"))
        let schema = CoreDataSQLiteSchema(model: try bundle.version(named: "BookmarksModel 6").model)
        #expect(schema.joinTables.map(\.name) == ["Z_1FAVORITES"])
        #expect(schema.joinTables.first?.columns == ["Z_1FAVORITEFOLDERS", "Z_1FAVORITES", "Z_FOK_1FAVORITES"])
        #expect(schema.tables.first?.columns.contains { $0.name == "Z_FOK_PARENT" } == true)
    }
}

/// What Strata writes: a new SQLite store for the model of each real store has that store's
/// schema, table for table and index for index, its entity rows, and metadata Python's
/// `plistlib` reads with Core Data's keys.
@Suite(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"))
struct CoreDataSQLiteWrittenSchemaTests {
    @Test(arguments: CoreDataSQLiteSchemaTests.stores)
    func aStoreStrataCreatesHasTheSchemaCoreDataCreated(_ store: String) async throws {
        let original = Fixtures.sharedSQLiteStores.appendingPathComponent(store)
        let model = try ManagedObjectModel(coreDataModelCache: try await CoreDataStoreReader.modelCache(ofStoreAt: original))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Written.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try await coordinator.addPersistentStore(type: .sqlite, at: url)
        try await coordinator.removePersistentStore(added)

        let real = try await CoreDataStoreReader.schema(ofStoreAt: original)
        let written = try await CoreDataStoreReader.schema(ofStoreAt: url)
        let originalMetadata = try await CoreDataStoreReader.metadata(ofStoreAt: original)
        // Strata writes current Core Data's index names; a store from before framework 800 has
        // the older names (§6), so there its indexes are held to the rules instead.
        let isOld = (originalMetadata.framework ?? .max) < CoreDataSQLiteSchema.modernIndexNamesFramework
        func coreDatas(_ schema: CoreDataStoreReader.Schema) -> Set<String> {
            Set(schema.objects.filter {
                !$0.name.hasPrefix("A") && !$0.name.hasPrefix("Z_TRANSACTION") && !(isOld && $0.type == "index")
            }.map(\.sql))
        }
        #expect(coreDatas(written).subtracting(coreDatas(real)).sorted() == [], "written, not in \(store)")
        #expect(coreDatas(real).subtracting(coreDatas(written)).sorted() == [], "in \(store), not written")
        if isOld {
            let indexes = Set(written.objects.filter { $0.type == "index" && !$0.name.hasPrefix("A") && !$0.name.hasPrefix("Z_TRANSACTION") }.map(\.sql))
            #expect(indexes == Set(CoreDataSQLiteSchema(model: model).indexes.map(\.createStatement)))
        }
        #expect(written.entities.map(\.number) == real.entities.map(\.number))
        #expect(written.entities.map(\.super) == real.entities.map(\.super))

        let metadata = try await CoreDataStoreReader.metadata(ofStoreAt: url)
        #expect(metadata.hashes == originalMetadata.hashes, "Core Data's hashes, under its key")
        if let digest = originalMetadata.digest { #expect(metadata.digest == digest, "\(store)") }
        if let checksum = originalMetadata.checksum { #expect(metadata.checksum == checksum, "\(store)") }
        #expect(metadata.digest != nil && metadata.checksum != nil)
        let plist = try await CoreDataStoreReader.readPlist(try await CoreDataStoreReader.metadataPlist(ofStoreAt: url).plist)
        #expect(plist["NSStoreType"] as? String == "SQLite")
        #expect(plist["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(plist["_NSAutoVacuumLevel"] as? String == "2")
    }
}
