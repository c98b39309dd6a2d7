import Foundation
@testable import Strata
import Testing

/// Real stores Core Data wrote (`../shared/fixtures/sqlite`) migrate through their bundle's later
/// versions when added with Core Data's two options alone, in place and in SQL, keeping every
/// object, its reference number (so its URI) and its values, and leaving the file as Core Data
/// would create it for the new version. Skipped where the fixtures are absent.
@Suite(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"))
struct CoreDataStoreMigrationTests {
    /// Each store with its bundle, the version that wrote it and the version it migrates to.
    static let migrations: [(store: String, bundle: String, from: String, to: String)] = {
        let example = "wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"
        let examples = "wibosco__CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/"
        let sample = "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"
        let samples = "alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/"
        return [
            (examples + "CoreDataMigration_Example_1.sqlite", example, "CoreDataMigration_Example", "CoreDataMigration_Example 4"),
            (examples + "CoreDataMigration_Example_2.sqlite", example, "CoreDataMigration_Example 2", "CoreDataMigration_Example 4"),
            (examples + "CoreDataMigration_Example_3.sqlite", example, "CoreDataMigration_Example 3", "CoreDataMigration_Example 4"),
            (samples + "SampleModel_V1.sqlite", sample, "SampleModel", "SampleModel3"),
            (samples + "SampleModel_V2.sqlite", sample, "SampleModel2", "SampleModel3"),
        ]
    }()

    @Test(arguments: migrations.indices)
    func aRealStoreMigratesOnOpenWithTheTwoOptionsAlone(_ index: Int) async throws {
        let (store, bundlePath, from, to) = Self.migrations[index]
        let url = try CoreDataStoreReader.copied(Fixtures.sharedSQLiteStores.appendingPathComponent(store))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(bundlePath))
        let old = try bundle.version(named: from).model, new = try bundle.version(named: to).model
        let before = try await Self.objects(in: url, model: old)
        #expect(!before.isEmpty)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: new)
        try await coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true])
        let after = try await Self.objects(in: coordinator)

        // What each value should be: traced back through every step's inferred mapping.
        let chain = bundle.versions[bundle.versions.firstIndex { $0.name == from }!...bundle.versions.firstIndex { $0.name == to }!].map(\.model)
        let mappings = try zip(chain, chain.dropFirst()).map { try MappingModel.inferred(from: $0, to: $1) }
        #expect(after.count == before.count, "\(store): every object is kept")
        for (key, object) in before {
            guard let entity = Self.trace(entity: object.entity, through: mappings) else { continue }
            let migrated = try #require(after[ObjectKey(entity: entity, reference: key.reference)], "\(store): \(key) is kept")
            let layout = try #require(new.layout(for: entity))
            for attribute in layout.attributes where !attribute.isTransient {
                // A carried value as it was (a required attribute's missing one takes its default); a new attribute's default.
                let origin = Self.trace(attribute: attribute.name, of: entity, backThrough: mappings)
                var expected = origin.flatMap { object.values[$0] ?? nil }
                if expected == nil, origin == nil || !attribute.isOptional { expected = attribute.defaultValue }
                #expect(migrated.values[attribute.name] == expected, "\(store): \(key).\(attribute.name)")
            }
            for (name, targets) in object.targets {
                guard let renamed = Self.trace(relationship: name, of: object.entity, through: mappings) else { continue }
                #expect(migrated.targets[renamed] == targets, "\(store): \(key).\(name)")
            }
        }
        // Object URIs taken before resolve after, also under an entity's old name.
        let storeID = try #require(coordinator.persistentStores.first?.identifier)
        for key in before.keys {
            let uri = ManagedObjectID.make(store: storeID, entity: key.entity, reference: key.reference).uriRepresentation()
            let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri), "\(uri)")
            #expect(id.referenceNumber == key.reference)
        }
        // The file is the one Core Data creates for the new version, and says it is at it.
        let schema = try await CoreDataStoreReader.schema(ofStoreAt: url)
        let expected = CoreDataSQLiteSchema(model: new)
        let tables = Set(schema.objects.filter { $0.type == "table" || $0.type == "index" }.map(\.sql))
        for statement in expected.createStatements where !statement.contains("Z_PRIMARYKEY") && !statement.contains("Z_METADATA") && !statement.contains("Z_MODELCACHE") {
            #expect(tables.contains(statement), "\(store): \(statement)")
        }
        #expect(schema.entities.map(\.number) == expected.entities.map(\.number))
        let hashes = try await CoreDataStoreReader.metadata(ofStoreAt: url).hashes
        #expect(hashes == new.entityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() })
    }

    @Test func aStoreMigratedOnOpenOpensAgainWithoutMigratingAndTakesNewObjects() async throws {
        let (store, bundlePath, _, to) = Self.migrations[0]
        let url = try CoreDataStoreReader.copied(Fixtures.sharedSQLiteStores.appendingPathComponent(store))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(bundlePath)).version(named: to).model
        let options: [String: any Sendable] = [
            PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true,
        ]
        let first = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try await first.addPersistentStore(type: .sqlite, at: url, options: options)
        try await first.removePersistentStore(added)
        let migrated = try await Self.objects(in: url, model: model)
        let second = PersistentStoreCoordinator(managedObjectModel: model)
        try await second.addPersistentStore(type: .sqlite, at: url)
        let reference = try await backgroundContext(second).perform { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            try post.setValue("p-new", forKey: "postID")
            try context.save()
            return post.objectID.referenceNumber
        }
        // The new object's reference number is above every migrated one: none is handed out twice.
        let highest = try #require(migrated.keys.map(\.reference).max())
        #expect(try #require(reference) > highest)
        #expect(try await Self.objects(in: url, model: model).count == migrated.count + 1)
    }

    // MARK: Helpers

    struct ObjectKey: Hashable, CustomStringConvertible {
        var entity: String
        var reference: Int64
        var description: String { "\(entity)/p\(reference)" }
    }

    struct ObjectValues: Sendable {
        var entity: String
        var values: [String: AttributeValue?]
        /// Relationship name → target reference numbers.
        var targets: [String: Set<Int64>]
    }

    static func objects(in url: URL, model: ManagedObjectModel) async throws -> [ObjectKey: ObjectValues] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.readOnly: true])
        let objects = try await objects(in: coordinator)
        try await coordinator.removePersistentStore(store)
        return objects
    }

    static func objects(in coordinator: PersistentStoreCoordinator) async throws -> [ObjectKey: ObjectValues] {
        let model = coordinator.managedObjectModel
        return try await backgroundContext(coordinator).perform { context in
            var result: [ObjectKey: ObjectValues] = [:]
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    let layout = object.layout
                    var values: [String: AttributeValue?] = [:]
                    for attribute in layout.attributes where !attribute.isTransient {
                        values[attribute.name] = try object.primitiveAttributeValue(forKey: attribute.name)
                    }
                    var targets: [String: Set<Int64>] = [:]
                    for (slot, relationship) in layout.relationships.enumerated() {
                        targets[relationship.name] = Set(object.storage.relationships[slot].objectIDs.compactMap(\.referenceNumber))
                    }
                    result[ObjectKey(entity: entity.name, reference: object.objectID.referenceNumber ?? 0)] =
                        ObjectValues(entity: entity.name, values: values, targets: targets)
                }
            }
            return result
        }
    }

    static func trace(entity: String, through mappings: [MappingModel]) -> String? {
        mappings.reduce(Optional(entity)) { name, mapping in name.flatMap { mapping.mapping(forSource: $0)?.destinationEntityName } }
    }

    static func trace(relationship: String, of entity: String, through mappings: [MappingModel]) -> String? {
        var (entity, name): (String?, String?) = (entity, relationship)
        for mapping in mappings {
            guard let current = entity, let key = name, let entityMapping = mapping.mapping(forSource: current) else { return nil }
            name = entityMapping.relationshipMappings.first { if case .sourceKey(key) = $0.value { true } else { false } }?.name
            entity = entityMapping.destinationEntityName
        }
        return name
    }

    /// The source attribute a destination attribute takes its values from, through every step.
    static func trace(attribute: String, of entity: String, backThrough mappings: [MappingModel]) -> String? {
        var (entity, name): (String?, String?) = (entity, attribute)
        for mapping in mappings.reversed() {
            guard let current = entity, let key = name, let entityMapping = mapping.mapping(forDestination: current),
                let property = entityMapping.attributeMappings.first(where: { $0.name == key }), case .sourceKey(let origin) = property.value
            else { return nil }
            (entity, name) = (entityMapping.sourceEntityName, origin)
        }
        return name
    }
}
