import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Xcode mapping models (`.xcmappingmodel`) and compiled ones (`.cdm`), read as Core Data reads
/// them (issue 29, §2), on the real files of `fixtures/compiled` (whose README describes them).
/// Serialized: one test registers a policy in the process-wide registry, another needs it absent.
@Suite(.enabled(if: Fixtures.hasSharedCompiledModels, "the shared compiled fixtures are not here"), .serialized)
struct CoreDataMappingModelTests {
    static let plus = Fixtures.sharedCompiledModels.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel")
    static let momd = plus.appendingPathComponent("Fixtures/SampleModel.momd")
    static let xcodeMapping = plus.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel")
    static let compiledMapping = plus.appendingPathComponent("Fixtures/V2toV3.cdm")
    static let policyName = "REPLACE_AT_RUNTIME.V2to3MakerPolicy"
    static let policies: [String: MigrationPolicyRegistry.Factory] = [policyName: { MakerPolicy() }]

    static let jsq = Fixtures.sharedCompiledModels.appendingPathComponent("jessesquires__JSQCoreDataKit/Example/ExampleModel/ExampleModel")
    static let jsqBundle = Fixtures.sharedXcodeModels.appendingPathComponent(
        "jessesquires__JSQCoreDataKit/Example/ExampleModel/ExampleModel/ExampleModel.xcdatamodeld")

    /// Each entity mapping as text: kind, entities, policy, and each property's value, sorted.
    static func summary(_ mapping: MappingModel) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: mapping.entityMappings.map { entity in
            let properties = (entity.attributeMappings + entity.relationshipMappings).map { property -> String in
                switch property.value {
                case .sourceKey(let key): "\(property.name) = $source.\(key)"
                case .expression(let expression): "\(property.name) = \(expression)"
                case .constant(let value): "\(property.name) = \(String(describing: value))"
                case .closure: "\(property.name) = closure"
                }
            }
            let head = "\(entity.kind) \(entity.sourceEntityName ?? "-") → \(entity.destinationEntityName ?? "-") \(entity.policyClassName ?? "")"
            return (entity.name, [head] + properties.sorted())
        })
    }

    /// What momc compiles an Xcode mapping model to is what Strata makes of the Xcode file: the
    /// `.cdm` beside it, read independently of it, gives the same mapping — so the rules for
    /// what `autogenerateexpression` fills in (a source property of the same name; a
    /// relationship's objects through the mapping of its destination) are Xcode's.
    @Test func theXcodeAndTheCompiledMappingModelMapAlike() throws {
        let bundle = try ModelBundle(contentsOf: Self.momd)
        let (source, destination) = (try bundle.version(named: "SampleModel2").model, try bundle.version(named: "SampleModel3").model)
        let xcode = try MappingModel(contentsOf: Self.xcodeMapping, source: source, destination: destination, policies: Self.policies)
        let compiled = try MappingModel(contentsOf: Self.compiledMapping, source: source, destination: destination, policies: Self.policies)
        #expect(Self.summary(xcode) == Self.summary(compiled))
        let summary = Self.summary(compiled)
        #expect(summary.keys.sorted() == ["CarToCar", "LuxuryCarToLuxuryCar", "Maker", "PersonToPerson", "SportCarToSportCar"])
        #expect(summary["CarToCar"] == [
            "custom Car → Car \(Self.policyName)", "markedForDeletionAsOf = $source.markedForDeletionAsOf", "model = $source.model",
            "numberPlate = $source.numberPlate", "owner = $source.owner", "previousOwners = $source.owner",
        ])
        #expect(summary["PersonToPerson"] == [
            "transform Person → Person ", "cars = $source.cars", "firstName = $source.firstName", "lastName = $source.lastName",
            "previousCars = $source.cars", "updatedAt = $source.updatedAt",
        ])
        #expect(summary["Maker"] == ["add - → Maker "])
        #expect(compiled.entityMappings.allSatisfy { $0.policyClassName == nil || $0.policy is MakerPolicy })
    }

    /// Value expressions Xcode archived — constants, `now()`, `$source` key paths — read as the
    /// expressions they are (`Version1_to_Version2`: the new company attributes get constants).
    @Test(.enabled(if: Fixtures.hasSharedXcodeModels, "the shared Xcode models are not here"))
    func constantAndFunctionExpressionsRead() throws {
        let bundle = try ModelBundle(contentsOf: Self.jsqBundle)
        let versions = bundle.versions
        let first = try MappingModel(
            contentsOf: Self.jsq.appendingPathComponent("Version1_to_Version2.xcmappingmodel"), source: versions[0].model,
            destination: versions[1].model)
        let employee = try #require(Self.summary(first)["EmployeeToEmployee"])
        #expect(employee.contains("companyName = \"Unknown\""))
        #expect(employee.contains("companyProfits = 0"))
        #expect(employee.contains("companyDateFounded = now()"))
        #expect(employee.contains("name = $source.name"))
        let second = try MappingModel(
            contentsOf: Self.jsq.appendingPathComponent("Version2_to_Version3.xcmappingmodel"), source: versions[1].model,
            destination: versions[2].model)
        let company = Self.summary(second).values.flatMap { $0 }
        #expect(company.contains("name = $source.companyName"))
        #expect(company.contains("dateFounded = $source.companyDateFounded"))
    }

    /// The real store Core Data wrote with `SampleModel2` migrates to `SampleModel3` through the
    /// project's own mapping model and a Swift port of its policy (upstream, an
    /// `NSEntityMigrationPolicy` that makes one `Maker` per distinct `Car.maker` and links each
    /// car to it): every car keeps its values and gets its maker, the previous-owner and
    /// previous-car relationships are filled by the file's expressions.
    @Test(
        .enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures are not here"),
        arguments: ["Fixtures/V2toV3.cdm", "MappingModels/V2toV3.xcmappingmodel"])
    func theRealStoreMigratesThroughTheRealMappingModel(_ mappingPath: String) async throws {
        let url = try CoreDataStoreReader.copied(
            Fixtures.sharedSQLiteStores.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = try ModelBundle(contentsOf: Self.momd)
        let before = try await CoreDataStoreMigrationTests.objects(in: url, model: try bundle.version(named: "SampleModel2").model)
        var plan = MigrationPlan(bundle: bundle)
        let stage = try plan.addMappingModel(at: Self.plus.appendingPathComponent(mappingPath), policies: Self.policies)
        #expect(stage.fromVersion == "SampleModel2" && stage.toVersion == "SampleModel3")
        try await plan.migrateStore(at: url, to: "SampleModel3")

        let after = try await CoreDataStoreMigrationTests.objects(in: url, model: try bundle.version(named: "SampleModel3").model)
        let makers = after.filter { $0.key.entity == "Maker" }
        let oldCars = before.filter { ["Car", "SportCar", "LuxuryCar"].contains($0.key.entity) }
        let distinctNames = Set(oldCars.values.compactMap { $0.values["maker"] ?? nil })
        #expect(makers.count == distinctNames.count && distinctNames.count == 10)
        for (key, old) in oldCars {
            let car = try #require(after[key], "\(key) was not migrated")
            #expect(car.values["numberPlate"] == old.values["numberPlate"])
            #expect(car.values["model"] == old.values["model"])
            let maker = try #require(car.targets["createdBy"]?.first.flatMap { after[CoreDataStoreMigrationTests.ObjectKey(entity: "Maker", reference: $0)] })
            #expect(maker.values["name"] == old.values["maker"])
            #expect(maker.targets["cars"]?.contains(key.reference) == true)
            #expect(car.targets["previousOwners"] == old.targets["owner"])
        }
        for (key, person) in after where key.entity == "Person" {
            #expect(person.targets["previousCars"] == before[key]?.targets["cars"])
        }
    }

    /// Migration on open finds a compiled mapping model among the locations it is given, by its
    /// entities' version hashes, and prefers it to inference (here inference is off).
    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures are not here"))
    func migrationOnOpenFindsTheCompiledMappingModel() async throws {
        let url = try CoreDataStoreReader.copied(
            Fixtures.sharedSQLiteStores.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        MigrationPolicyRegistry.register(named: "V2to3MakerPolicy") { MakerPolicy() }
        defer { MigrationPolicyRegistry.unregister(named: "V2to3MakerPolicy") }
        let bundle = try ModelBundle(contentsOf: Self.momd)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try bundle.version(named: "SampleModel3").model)
        try await coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [
                PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: false,
                PersistentStoreOption.mappingModelLocations: [Self.compiledMapping.deletingLastPathComponent()],
            ])
        let makers = try await CoreDataStoreMigrationTests.objects(in: coordinator).filter { $0.key.entity == "Maker" }
        #expect(makers.count == 10)
    }

    /// A policy the program has not registered fails the planning, naming the class and how to
    /// register it.
    @Test func anUnregisteredPolicyIsNamed() throws {
        let bundle = try ModelBundle(contentsOf: Self.momd)
        var plan = MigrationPlan(bundle: bundle)
        let error = try #require(throws: MigrationError.self) { try plan.addMappingModel(at: Self.compiledMapping) }
        #expect(error.code == .invalidMapping)
        #expect(error.problems.contains { $0.contains(Self.policyName) && $0.contains("MigrationPolicyRegistry.register(named:") })
    }
}

/// A Swift port of CoreDataPlus's `V2to3MakerPolicy`: one `Maker` per distinct `Car.maker`
/// name, across the three car mappings that name the policy, each car linked to its maker.
struct MakerPolicy: EntityMigrationPolicy {
    func createDestinationInstance(for source: MigrationObject, mapping: EntityMapping, in migration: MigrationSession) throws -> MigrationObject? {
        var car = try migration.standardDestination(for: source, mapping: mapping)
        guard case .string(let name)? = source["maker"] else { return car }
        let maker = try migration.insertedObjects(entity: "Maker").first { $0["name"] == .string(name) }?.objectID
            ?? migration.insert(entity: "Maker", attributeValues: ["name": .string(name)])
        migration.relate(maker, "cars", to: car.objectID)
        car.relatedObjectIDs["createdBy"] = [maker]
        return car
    }
}
