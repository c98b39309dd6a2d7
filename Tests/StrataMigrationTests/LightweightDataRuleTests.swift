import Foundation
import Strata
import Testing

/// Core Data infers a mapping for steps that make values required, and lets the data decide
/// (`formats/coredata-lightweight-migration.md`). Each test names the rule of that page it checks.
/// The tests that migrate data run on every store type (the argument: a file's extension, or
/// `postgres` with a test server): the binary store's rewrite, the SQLite store's migration in SQL
/// and the PostgreSQL store's in one transaction decide alike.
@Suite struct LightweightDataRuleTests {
    static let kinds = MigrationFixtures.storeKinds

    /// Version 1: notes with an optional title and an optional link to a folder.
    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("title", .string, optional: true)
                AttributeDescription("words", .integer32, optional: true)
                RelationshipDescription("folder", toOne: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") {
                AttributeDescription("name", .string)
                RelationshipDescription("notes", toMany: "Note", inverse: "folder")
            }
        }
    }

    /// A v1 store: notes with and without titles, one in a folder. Returns every note's URI by text.
    static func store(at url: URL, titles: [String?], folderFor first: Bool = true) async throws -> [URL] {
        try await MigrationFixtures.withStore(at: url, model: try v1()) { context in
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            var notes: [ManagedObject] = []
            for (index, title) in titles.enumerated() {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(title, forKey: "title")
                try note.setValue(index * 100, forKey: "words")
                if index == 0 && first { try note.setValue(folder, forKey: "folder") }
                notes.append(note)
            }
            try context.save()
            return notes.map { $0.objectID.uriRepresentation() }
        }
    }

    /// Version 1 with changes made to the note entity.
    static func v2(_ change: (inout EntityDescription) -> Void) throws -> ManagedObjectModel {
        var entities = try v1().entities
        let index = try #require(entities.firstIndex { $0.name == "Note" })
        change(&entities[index])
        return try ManagedObjectModel(entities: entities)
    }

    /// What a failed migration must leave as it was: a binary store's bytes; a SQLite or
    /// PostgreSQL store's metadata and rows (a SQLite file's bytes change whenever SQLite
    /// checkpoints its log).
    static func state(of url: URL, model: ManagedObjectModel) async throws -> StoreState {
        let type = MigrationFixtures.storeType(of: url)
        guard type != .binary else { return StoreState(bytes: try Data(contentsOf: url)) }
        let hashes = try PersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)[PersistentStore.modelVersionHashesKey]
        let rows = try await MigrationFixtures.withStore(at: url, model: model) { context in
            try context.objects("Note", sortedBy: "title").map { object in
                try object.entity.attributes.map { "\(try object.value(forKey: $0.name) ?? "nil")" }.joined(separator: ",")
            }.sorted()  // several notes may have no title
        }
        return StoreState(hashes: hashes, rows: rows)
    }

    struct StoreState: Equatable {
        var bytes: Data?
        var hashes: MetadataValue?
        var rows: [String] = []
    }

    /// Migrates the store at `url` (its type told by its URL) with an inferred mapping, through
    /// a plan of the two versions.
    @discardableResult
    static func migrate(
        _ url: URL, from source: ManagedObjectModel? = nil, to destination: ManagedObjectModel, fill: Bool = false,
        names: (String, String) = ("v1", "v2")
    ) async throws -> MigrationReport {
        let bundle = try ModelBundle(name: "Notes", versions: [(names.0, try source ?? v1()), (names.1, destination)])
        var plan = MigrationPlan(bundle: bundle)
        plan.fillsMissingValues = fill
        return try #require(try await plan.migrateStore(at: url, type: MigrationFixtures.storeType(of: url)).first)
    }

    static func titles(in url: URL, model: ManagedObjectModel) async throws -> [String?] {
        try await MigrationFixtures.withStore(at: url, model: model) { context in
            try context.objects("Note", sortedBy: "words").map { try $0.value(forKey: "title") as? String }
        }
    }

    static func titleRequired(default value: AttributeValue?) -> (inout EntityDescription) -> Void {
        { note in
            let index = note.attributes.firstIndex { $0.name == "title" }!  // v1 has it
            note.attributes[index].isOptional = false
            note.attributes[index].defaultValue = value
        }
    }

    @Test(arguments: kinds) func optionalToRequiredWithADefaultFillsTheEmptyValues(_ kind: String) async throws {
        // §3: optional → required, with default: NULLs replaced by the default, others copied.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        _ = try await Self.store(at: url, titles: ["Kept", nil])
        let destination = try Self.v2(Self.titleRequired(default: "Untitled"))
        let report = try await Self.migrate(url, to: destination)
        #expect(report.filledValues.isEmpty)
        #expect(try await Self.titles(in: url, model: destination) == ["Kept", "Untitled"])
    }

    @Test(arguments: kinds) func optionalToRequiredWithoutADefaultFailsOnEmptyValuesAndWritesNothing(_ kind: String) async throws {
        // §3: optional → required, no default: inferred; fails iff some row is NULL, naming it; store unchanged.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        let uris = try await Self.store(at: url, titles: ["Kept", nil, nil])
        let before = try await Self.state(of: url, model: try Self.v1())
        let destination = try Self.v2(Self.titleRequired(default: nil))
        let error = await #expect(throws: MigrationError.self) { try await Self.migrate(url, to: destination) }
        #expect(error?.code == .missingValues)
        let rule = "Note.title: it becomes required, has no default value, and has no value here (§3: optional → required, no default)"
        #expect(error?.problems == ["\(uris[1].absoluteString): \(rule)", "\(uris[2].absoluteString): \(rule)"])
        #expect(error?.message == "v1 → v2: 2 problems in the store's data, so the migration wrote nothing and the store is unchanged; "
            + "give the step a custom mapping that sets them, or run `strata migrate --fill-defaults` to give each missing attribute "
            + "value its default or its type's zero value")
        #expect(try await Self.state(of: url, model: try Self.v1()) == before)

        // The same step succeeds on a store whose data has every value.
        let full = try await MigrationFixtures.storeURL("Full", kind, in: directory)
        _ = try await Self.store(at: full, titles: ["A", "B"])
        try await Self.migrate(full, to: destination)
        #expect(try await Self.titles(in: full, model: destination) == ["A", "B"])
    }

    @Test(arguments: kinds) func fillDefaultsGivesTheZeroValueAndSaysSo(_ kind: String) async throws {
        // The opt-in beyond Core Data: what §3 would fail on is filled, and reported.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        _ = try await Self.store(at: url, titles: ["Kept", nil, nil])
        let destination = try Self.v2(Self.titleRequired(default: nil))
        let report = try await Self.migrate(url, to: destination, fill: true)
        #expect(report.filledValues == ["Note.title": 2])
        #expect(try await Self.titles(in: url, model: destination) == ["Kept", "", ""])
    }

    @Test(arguments: kinds) func aNewRequiredAttributeWithoutADefaultFailsOnlyWhenTheEntityHasObjects(_ kind: String) async throws {
        // §3: new, required, no default: fails if the entity has any row; succeeds on an empty table.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = try Self.v2 { $0.attributes.append(AttributeDescription(name: "author", type: .string)) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        let uris = try await Self.store(at: url, titles: ["A"])
        let error = await #expect(throws: MigrationError.self) { try await Self.migrate(url, to: destination) }
        #expect(error?.problems == [
            "\(uris[0].absoluteString): Note.author: a new required attribute without a default value has no value (§3: new, required, no default)"
        ])
        let empty = try await MigrationFixtures.storeURL("Empty", kind, in: directory)
        _ = try await Self.store(at: empty, titles: [])
        try await Self.migrate(empty, to: destination)
    }

    @Test(arguments: kinds) func aToOneMadeRequiredFailsOnObjectsWithoutOne(_ kind: String) async throws {
        // §5: optional → required to-one: fails iff some row has a NULL foreign key.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        let uris = try await Self.store(at: url, titles: ["In a folder", "Loose"])
        let destination = try Self.v2 { $0.relationships[0].isOptional = false }
        let error = await #expect(throws: MigrationError.self) { try await Self.migrate(url, to: destination, fill: true) }
        #expect(error?.code == .missingValues, "--fill-defaults has nothing to give a relationship")
        #expect(error?.problems == ["\(uris[1].absoluteString): Note.folder: it becomes required and is empty here (§5: becomes mandatory)"])
    }

    @Test(arguments: kinds) func aNonOptionalToManyWithNoMinimumMayStayEmpty(_ kind: String) async throws {
        // §5 and §6: a non-optional to-many with minCount 0 is not mandatory: valid when empty,
        // at migration and at every save.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var entities = try Self.v1().entities
        let folder = try #require(entities.firstIndex { $0.name == "Folder" })
        entities[folder].relationships[0].isOptional = false
        let destination = try ManagedObjectModel(entities: entities)
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        _ = try await Self.store(at: url, titles: ["A"], folderFor: false)
        try await Self.migrate(url, to: destination)
        try await MigrationFixtures.withStore(at: url, model: destination) { context in
            let empty = try context.insertNewObject(forEntityName: "Folder")
            try empty.setValue("Empty", forKey: "name")
            try context.save()
        }

        // With a minimum it is mandatory: an empty one fails the migration (§5) and a save (§6, 1580).
        entities[folder].relationships[0].minCount = 1
        let mandatory = try ManagedObjectModel(entities: entities)
        let other = try await MigrationFixtures.storeURL("Other", kind, in: directory)
        _ = try await Self.store(at: other, titles: ["A"], folderFor: false)
        let error = await #expect(throws: MigrationError.self) { try await Self.migrate(other, to: mandatory) }
        #expect(error?.problems.first?.hasSuffix("Folder.notes: it becomes required and holds no object here (§5: becomes mandatory)") == true)
    }

    @Test(arguments: kinds) func numericAndBooleanChangesAreInferredAndKeepWhatAnAppReads(_ kind: String) async throws {
        // §4: any pair of Integer 16/32/64, Decimal, Double, Float, Boolean is inferred; the
        // stored number is kept as an app reads it.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (type, expected) in [
            (AttributeType.boolean, [false, true, true] as [any Sendable]), (.double, [0.0, 100.0, 200.0]), (.integer16, [0, 100, 200] as [Int16]),
            (.decimal, [Decimal(0), 100, 200]),
        ] as [(AttributeType, [any Sendable])] {
            let url = try await MigrationFixtures.storeURL(type.rawValue, kind, in: directory)
            _ = try await Self.store(at: url, titles: ["a", "b", "c"])
            let destination = try Self.v2 { note in note.attributes[1].type = type }
            try await Self.migrate(url, to: destination)
            let values = try await MigrationFixtures.withStore(at: url, model: destination) { context in
                try context.objects("Note", sortedBy: "title").map { "\(try $0.value(forKey: "words") ?? "nil")" }
            }
            #expect(values == expected.map { "\($0)" }, "\(type)")
        }
    }

    @Test(arguments: kinds) func anOrderedToManyKeepsItsOrder(_ kind: String) async throws {
        // An ordered one-to-many keeps its order in the targets' rows: a migration that copies
        // the owner before its targets must still write it.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Songs", kind, in: directory)
        try await MigrationFixtures.makePlaylistStore(at: url)
        try await Self.migrate(url, from: try MigrationFixtures.playlistModel(rating: false), to: try MigrationFixtures.playlistModel(rating: true))
        let order = try await MigrationFixtures.playlistOrder(at: url)
        #expect(order == ["Gamma", "Alpha", "Beta"])
    }

    @Test(arguments: kinds) func aNumberThatNoLongerFitsFailsNamingItsObject(_ kind: String) async throws {
        // §4 copies the stored value; one that does not fit its new integer type is not read back
        // as itself, so Strata fails on it (every such object named) rather than change it.
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        let wide = try ManagedObjectModel {
            EntityDescription("Counter") { AttributeDescription("value", .integer64) }
        }
        let uri = try await MigrationFixtures.withStore(at: url, model: wide) { context in
            let counter = try context.insertNewObject(forEntityName: "Counter")
            try counter.setValue(300_000, forKey: "value")
            try context.save()
            return counter.objectID.uriRepresentation()
        }
        let narrow = try ManagedObjectModel {
            EntityDescription("Counter") { AttributeDescription("value", .integer16) }
        }
        let error = await #expect(throws: MigrationError.self) {
            try await Self.migrate(url, from: wide, to: narrow, names: ("wide", "narrow"))
        }
        #expect(error?.code == .dataLoss)
        #expect(error?.problems == ["\(uri.absoluteString): Counter.value: its Integer 64 value does not fit a Integer 16 attribute (§4)"])
    }

    @Test(arguments: [
        (AttributeType.string, AttributeType.integer64), (.date, .double), (.string, .transformable), (.string, .uuid),
        (.binaryData, .transformable),
    ])
    func incompatibleTypeChangesAreRefusedNamingTheChange(_ from: AttributeType, _ to: AttributeType) throws {
        // §4: everything else is refused (Binary ↔ Transformable without NSMigrationAllowTypeTransformation).
        let old = try ManagedObjectModel { EntityDescription("Thing") { AttributeDescription("value", from, optional: true) } }
        let new = try ManagedObjectModel { EntityDescription("Thing") { AttributeDescription("value", to, optional: true) } }
        let error = #expect(throws: MigrationError.self) { try MappingModel.inferred(from: old, to: new) }
        #expect(error?.problems == [
            "Thing.value: \(from.rawValue) → \(to.rawValue): the types are incompatible, so inference cannot map it "
                + "(Core Data refuses it too); give the step a custom mapping"
        ])
    }

    @Test func binaryToTransformableIsInferredWhenTheModelAllowsIt() throws {
        // §4: Binary ↔ Transformable with NSMigrationAllowTypeTransformation on the destination.
        let old = try ManagedObjectModel { EntityDescription("Thing") { AttributeDescription("value", .binaryData, optional: true) } }
        var value = AttributeDescription(name: "value", type: .transformable, isOptional: true)
        value.userInfo = ["NSMigrationAllowTypeTransformation": "YES"]
        let new = try ManagedObjectModel(entities: [EntityDescription(name: "Thing", attributes: [value])])
        _ = try MappingModel.inferred(from: old, to: new)
    }

    @Test func aToManyBecomingAToOneIsRefused() throws {
        // §5: to-many → to-one: refused ("Can not map from a to-many to a to-one relationship").
        var entities = try Self.v1().entities
        let folder = try #require(entities.firstIndex { $0.name == "Folder" })
        let note = try #require(entities.firstIndex { $0.name == "Note" })
        entities[folder].relationships[0] = RelationshipDescription("notes", toOne: "Note", inverse: "folder")
        entities[note].relationships[0] = RelationshipDescription("folder", toOne: "Folder", inverse: "notes")
        let error = #expect(throws: MigrationError.self) { try MappingModel.inferred(from: try Self.v1(), to: try ManagedObjectModel(entities: entities)) }
        #expect(error?.problems == ["Folder.notes: a to-many relationship cannot become a to-one (Core Data refuses it too)"])
    }
}

/// A staged plan whose later stage the data refuses leaves the store as it was before the first.
@Suite struct StagedDataRuleTests {
    @Test(arguments: LightweightDataRuleTests.kinds) func aLaterStageThatFailsPutsTheStoreBackAsItWas(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func model(size: Bool, titleRequired: Bool) throws -> ManagedObjectModel {
            try ManagedObjectModel {
                EntityDescription("Note") {
                    AttributeDescription("title", .string, optional: !titleRequired)
                    if size { AttributeDescription("size", .integer32, optional: true) }
                }
            }
        }
        let bundle = try ModelBundle(name: "Notes", versions: [
            ("Notes", try model(size: false, titleRequired: false)), ("Notes 2", try model(size: true, titleRequired: false)),
            ("Notes 3", try model(size: true, titleRequired: true)),
        ])
        let url = try await MigrationFixtures.storeURL("Notes", kind, in: directory)
        try await MigrationFixtures.withStore(at: url, model: bundle.versions[0].model) { context in
            _ = try context.insertNewObject(forEntityName: "Note")  // no title
            try context.save()
        }
        let before = try await LightweightDataRuleTests.state(of: url, model: bundle.versions[0].model)
        let error = await #expect(throws: MigrationError.self) { try await MigrationPlan(bundle: bundle).migrateStore(at: url, type: MigrationFixtures.storeType(of: url)) }
        #expect(error?.code == .missingValues)
        #expect(error?.message.hasPrefix("Notes 2 → Notes 3: 1 problem") == true)
        #expect(try await LightweightDataRuleTests.state(of: url, model: bundle.versions[0].model) == before, "back at version 1, not left at version 2")
        // Nothing beside the store but SQLite's own -wal and -shm files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { $0.hasPrefix("Notes.\(kind)") }, "no copy left behind")
    }
}
