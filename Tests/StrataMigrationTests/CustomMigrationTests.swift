import Foundation
import Strata
import Testing

/// Changes inference must refuse, and the custom mappings that do them: on a binary store by its
/// streaming rewrite, on a SQLite store by copying rows into a new file, on a PostgreSQL store by
/// copying objects within one transaction (the argument is the store file's extension, or
/// `postgres`).
@Suite struct CustomMigrationTests {
    /// Migrates the store at `url` through one custom stage, whatever its type.
    static func migrate(_ url: URL, from old: ManagedObjectModel, to new: ManagedObjectModel, mapping: MappingModel) async throws {
        let bundle = try ModelBundle(name: "Contacts", versions: [("old", old), ("new", new)])
        try await MigrationPlan(bundle: bundle, customStages: [.custom(from: "old", to: "new", mapping: mapping)])
            .migrateStore(at: url, type: MigrationFixtures.storeType(of: url))
    }

    static func contactsStore(at url: URL, bundle: ModelBundle) async throws {
        try await MigrationFixtures.withStore(at: url, model: bundle.versions[0].model) { context in
            for (first, last, age, phone) in [("Ada", "Lovelace", 36, "555-0100"), ("Alan", "Turing", 41, "555-0199")] {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValue(first, forKey: "firstName")
                try person.setValue(last, forKey: "lastName")
                try person.setValue(age, forKey: "age")
                try person.setValue(phone, forKey: "phone")
            }
        }
    }

    @Test func inferenceRefusesAndSaysEveryReason() throws {
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.contacts)
        let error = #expect(throws: MigrationError.self) {
            try MappingModel.inferred(from: bundle.versions[0].model, to: bundle.versions[1].model)
        }
        #expect(error?.code == .cannotInfer)
        // The new required fullName is inferred (§3: the data decides); String → number is not (§4).
        #expect(error?.problems == [
            "Person.phone: String → Integer 64: the types are incompatible, so inference cannot map it (Core Data refuses it too); "
                + "give the step a custom mapping"
        ])
        #expect(error?.description == """
            cannot infer a mapping (1 problem):
              - Person.phone: String → Integer 64: the types are incompatible, so inference cannot map it (Core Data refuses it too); \
            give the step a custom mapping
            """)
    }

    @Test func mergingTwoHierarchiesIsRefused() throws {
        let old = try ManagedObjectModel {
            EntityDescription("Car") { AttributeDescription("plate", .string) }
            EntityDescription("Bike") { AttributeDescription("plate", .string) }
        }
        let new = try ManagedObjectModel {
            EntityDescription("Vehicle", isAbstract: true) { AttributeDescription("plate", .string) }
            EntityDescription("Car", superentity: "Vehicle")
            EntityDescription("Bike", superentity: "Vehicle")
        }
        let error = #expect(throws: MigrationError.self) { try MappingModel.inferred(from: old, to: new) }
        #expect(error?.problems == ["Vehicle: it would merge the hierarchies of Bike and Car, whose reference numbers may collide"])
    }

    @Test(arguments: LightweightDataRuleTests.kinds)
    func aMappingFileDoesWhatInferenceCannot(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Contacts", kind, in: directory)
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.contacts)
        try await Self.contactsStore(at: url, bundle: bundle)
        let (old, new) = (bundle.versions[0].model, bundle.versions[1].model)
        let mapping = try MappingModel(contentsOf: MigrationFixtures.contactsMapping, source: old, destination: new)
        try await Self.migrate(url, from: old, to: new, mapping: mapping)
        let people = try await MigrationFixtures.withStore(at: url, model: new) { context in
            try context.objects("Person", sortedBy: "fullName").map {
                "\(try $0.value(forKey: "fullName") ?? "-") \(try $0.value(forKey: "age") ?? "-") \(try $0.value(forKey: "phone") ?? "nil")"
            }
        }
        #expect(people == ["Ada Lovelace 36 nil", "Alan Turing 41 nil"])
    }

    @Test func aBadMappingFileListsEveryProblem() throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.json")
        try Data(#"""
            {"entityMappings": [
              {"source": "Persn", "destination": "Person", "attributes": {"fullName": "firstName +"}},
              {"source": "Person", "destination": "Person", "attributes": {"nickname": "firstName"}, "kind": "reshape"}
            ]}
            """#.utf8).write(to: file)
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.contacts)
        let error = #expect(throws: MigrationError.self) {
            try MappingModel(contentsOf: file, source: bundle.versions[0].model, destination: bundle.versions[1].model)
        }
        #expect(error?.code == .invalidMapping)
        #expect(error?.problems == [
            "entityMappings[0]: the source model has no entity 'Persn'",
            "entityMappings[1]: unknown kind 'reshape' (transform, copy, add or remove)",
        ])
    }

    /// A custom mapping in Swift: closures for values, and a policy that makes objects of a new
    /// entity and relates them (the role of NSEntityMigrationPolicy).
    @Test(arguments: LightweightDataRuleTests.kinds)
    func swiftClosuresAndAPolicy(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Contacts", kind, in: directory)
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.contacts)
        try await Self.contactsStore(at: url, bundle: bundle)
        let old = bundle.versions[0].model
        let new = try ManagedObjectModel {
            EntityDescription("Person") {
                AttributeDescription("fullName", .string)
                AttributeDescription("age", .integer16, optional: true)
                RelationshipDescription("decade", toOne: "Decade", inverse: "people")
            }
            EntityDescription("Decade") {
                AttributeDescription("start", .integer16)
                RelationshipDescription("people", toMany: "Person", inverse: "decade")
            }
        }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(
                kind: .custom, source: "Person", destination: "Person",
                attributeMappings: [
                    PropertyMapping(name: "fullName", value: .closure { source in
                        .string("\(source["lastName"]?.anyValue ?? ""), \(source["firstName"]?.anyValue ?? "")")
                    }),
                    .copy("age"),
                ],
                policy: DecadePolicy()),
            EntityMapping(kind: .add, source: nil, destination: "Decade"),
        ])
        try await Self.migrate(url, from: old, to: new, mapping: mapping)
        let rows = try await MigrationFixtures.withStore(at: url, model: new) { context in
            try context.objects("Decade", sortedBy: "start").map { decade in
                let people = try #require(try decade.value(forKey: "people") as? Set<ManagedObject>)
                return "\(try decade.value(forKey: "start") ?? "-"): " + people.map { "\((try? $0.value(forKey: "fullName")) ?? "")" }.sorted().joined(separator: "; ")
            }
        }
        #expect(rows == ["30: Lovelace, Ada", "40: Turing, Alan"])
    }

    /// A copy of objects (the SQLite and PostgreSQL stores' way with a custom step) keeps an
    /// ordered one-to-many's order, which the targets' rows hold: the owner is copied before
    /// its targets (entities go in name order), so its order is written once they are there.
    @Test(arguments: LightweightDataRuleTests.kinds)
    func anOrderedToManyKeepsItsOrderThroughACustomStep(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Songs", kind, in: directory)
        try await MigrationFixtures.makePlaylistStore(at: url)
        let mapping = MappingModel(entityMappings: [
            EntityMapping(
                kind: .transform, source: "Playlist", destination: "Playlist", attributeMappings: [.copy("name")],
                relationshipMappings: [.copy("songs")]),
            EntityMapping(
                kind: .transform, source: "Song", destination: "Song",
                attributeMappings: [
                    PropertyMapping(name: "title", value: .closure { source in .string("\(source["title"]?.anyValue ?? "")".uppercased()) })
                ],
                relationshipMappings: [.copy("playlist")]),
        ])
        try await Self.migrate(
            url, from: try MigrationFixtures.playlistModel(rating: false), to: try MigrationFixtures.playlistModel(rating: true), mapping: mapping)
        #expect(try await MigrationFixtures.playlistOrder(at: url) == ["GAMMA", "ALPHA", "BETA"])
    }

    /// A custom step that fails half-way leaves the store as it was, and no partial file beside it.
    @Test(arguments: LightweightDataRuleTests.kinds)
    func aFailingCustomStepLeavesTheStoreAsItWas(_ kind: String) async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await MigrationFixtures.storeURL("Contacts", kind, in: directory)
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.contacts)
        try await Self.contactsStore(at: url, bundle: bundle)
        let (old, new) = (bundle.versions[0].model, bundle.versions[1].model)
        struct Refused: Error {}
        var mapping = try MappingModel(contentsOf: MigrationFixtures.contactsMapping, source: old, destination: new)
        let person = try #require(mapping.mapping(forDestination: "Person"))
        mapping = mapping.replacing(EntityMapping(
            kind: .transform, source: "Person", destination: "Person",
            attributeMappings: person.attributeMappings.map { property in
                property.name != "fullName" ? property : PropertyMapping(name: "fullName", value: .closure { source in
                    if source["firstName"] == .string("Alan") { throw Refused() }
                    return .string("\(source["firstName"]?.anyValue ?? "")")
                })
            }))
        await #expect(throws: Refused.self) { try await Self.migrate(url, from: old, to: new, mapping: mapping) }
        let people = try await MigrationFixtures.withStore(at: url, model: old) { context in
            try context.objects("Person", sortedBy: "firstName").map { "\(try $0.value(forKey: "firstName") ?? "-") \(try $0.value(forKey: "phone") ?? "-")" }
        }
        #expect(people == ["Ada 555-0100", "Alan 555-0199"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("Contacts.\(kind)") }
        #expect(left.isEmpty, "\(left)")
    }

    /// Puts each person in a Decade object made on first need.
    final class DecadePolicy: EntityMigrationPolicy, @unchecked Sendable {
        // Safe: a migration calls its policies from one thread, one object at a time.
        private var decades: [Int64: ManagedObjectID] = [:]

        func createDestinationInstance(
            for source: MigrationObject, mapping: EntityMapping, in migration: MigrationSession
        ) throws -> MigrationObject? {
            var person = try migration.standardDestination(for: source, mapping: mapping)
            guard case .integer16(let age)? = source["age"] else { return person }
            let start = Int64(age / 10 * 10)
            let decade = try decades[start] ?? migration.insert(entity: "Decade", attributeValues: ["start": .integer16(Int16(start))])
            decades[start] = decade
            migration.relate(decade, "people", to: person.objectID)
            person.relatedObjectIDs["decade"] = [decade]
            return person
        }
    }
}
