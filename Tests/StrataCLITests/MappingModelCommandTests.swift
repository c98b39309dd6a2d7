import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata migrate --mapping` with Core Data's own mapping models (issue 29, §2): the real
/// Xcode and compiled mapping models of `fixtures/compiled`, planned and run as a user would.
@Suite(.enabled(if: SharedMappingFixtures.present, "the shared compiled fixtures are not here"))
struct MappingModelCommandTests {
    static let compiled = SharedMappingFixtures.compiled
    static let xcodeModels = SharedMappingFixtures.xcodeModels
    static let sample = compiled.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel")
    static let jsq = "jessesquires__JSQCoreDataKit/Example/ExampleModel/ExampleModel"

    /// `--plan` lists each entity mapping of an Xcode mapping model with its kind, its policy
    /// (named, though the tool cannot run it) and each property's value.
    @Test func thePlanListsEveryEntityMapping() async throws {
        let result = try await StrataTool.run(
            "migrate", "--plan", "--model", Self.sample.appendingPathComponent("Fixtures/SampleModel.momd").path, "--from", "SampleModel2",
            "--to", "SampleModel3", "--mapping", Self.sample.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel").path)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("1. SampleModel2 → SampleModel3 (mapping model V2toV3.xcmappingmodel)"))
        #expect(lines.contains("CarToCar (custom, policy REPLACE_AT_RUNTIME.V2to3MakerPolicy, not in this program): Car → Car"))
        #expect(lines.contains("previousOwners = $source.owner"))
        #expect(lines.contains("Maker (add): ∅ → Maker"))
        #expect(lines.contains("PersonToPerson (transform): Person → Person"))
    }

    /// Running a mapping whose policy is not in the tool fails before touching the store, and
    /// says why and what to do.
    @Test func aMappingWithAPolicyIsNotRunByTheTool() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mapping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("SampleModel_V2.sqlite")
        try FileManager.default.copyItem(
            at: StrataTool.packageRoot.deletingLastPathComponent().appendingPathComponent(
                "shared/fixtures/sqlite/alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"), to: store)
        let before = try Data(contentsOf: store)
        let result = try await StrataTool.run(
            "migrate", store.path, "--model", Self.sample.appendingPathComponent("Fixtures/SampleModel.momd").path, "--to", "SampleModel3",
            "--mapping", Self.sample.appendingPathComponent("Fixtures/V2toV3.cdm").path)
        #expect(result.status != 0)
        #expect(result.errors.contains("REPLACE_AT_RUNTIME.V2to3MakerPolicy is not registered"))
        #expect(result.errors.contains("The strata tool cannot run a program's own policies"))
        #expect(try Data(contentsOf: store) == before)
    }

    /// A mapping model that splits an entity (JSQCoreDataKit's `Version2_to_Version3`: each
    /// `Employee` also makes a `Company` of its company attributes) migrates a store and verifies.
    @Test func anXcodeMappingModelThatSplitsAnEntityMigratesAStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mapping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = Self.xcodeModels.appendingPathComponent("\(Self.jsq)/ExampleModel.xcdatamodeld")
        let store = directory.appendingPathComponent("Example.sqlite")
        let records = directory.appendingPathComponent("employees.jsonl")
        try Data(
            """
            {"entity": "Employee", "id": "e1", "values": {"name": "Ada", "birthDate": "1815-12-10T00:00:00Z", "salary": 100, "companyName": "Engines", "companyDateFounded": "1830-01-01T00:00:00Z", "companyProfits": 3}}
            {"entity": "Employee", "id": "e2", "values": {"name": "Alan", "birthDate": "1912-06-23T00:00:00Z", "salary": 200, "companyName": "Bletchley", "companyDateFounded": "1938-01-01T00:00:00Z", "companyProfits": 4}}
            """.utf8
        ).write(to: records)
        let imported = try await StrataTool.run("import", store.path, "--model", bundle.appendingPathComponent("Version 2.xcdatamodel").path, "--from", records.path)
        #expect(imported.status == 0, "\(imported.errors)")
        let result = try await StrataTool.run(
            "migrate", store.path, "--model", bundle.path, "--to", "Version 3",
            "--mapping", Self.compiled.appendingPathComponent("\(Self.jsq)/Version2_to_Version3.xcmappingmodel").path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("EmployeeToCompany (transform): Employee → Company"))
        #expect(result.output.contains("Migrated to 'Version 3' and verified: 4 objects"))
        let dump = try await StrataTool.run("dump", store.path, "--model", bundle.appendingPathComponent("Version 3.xcdatamodel").path)
        #expect(dump.output.contains(#""name":"Bletchley""#) && dump.output.contains(#""name":"Alan""#), "\(dump.output)")
    }
}

/// Where the shared fixtures are (beside the project; absent in a user's clone).
enum SharedMappingFixtures {
    static let compiled = StrataTool.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/compiled")
    static let xcodeModels = StrataTool.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodels")
    static let present = FileManager.default.fileExists(atPath: compiled.path) && FileManager.default.fileExists(atPath: xcodeModels.path)
}
