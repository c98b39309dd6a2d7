import Foundation
import Strata
import StrataTestSupport
import Testing

/// Strata's two model writers hold for the whole class of models, not only the fixtures': each
/// of many generated models (``ModelGenerator``: inheritance with clashing sibling properties,
/// many-to-many and ordered sides, self-relationships, indexes) written as an Xcode
/// `.xcdatamodel` and compiled to a `.mom` reads back with the same entities, properties and
/// Core Data version hashes (`formats/coredata-version-hashes.md`), and compiling what was read
/// is stable: the write-read cycle loses nothing the hashes or a store depend on.
///
/// `STRATA_SCHEMA_SEED` and `STRATA_SCHEMA_CASES` select the models, as for ``GeneratedSchemaTests``.
@Suite struct GeneratedModelFileTests {
    @Test func everyGeneratedModelWritesAndCompilesToTheSameModel() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var checked = 0
        for seed in GeneratedSchemaTests.seeds {
            var generator = ModelGenerator(seed: seed)
            guard let model = try? generator.makeModel() else { continue }  // GeneratedSchemaTests reports those
            let source = directory.appendingPathComponent("\(seed).xcdatamodel")
            try model.write(toModelAt: source)
            let compiled = directory.appendingPathComponent("\(seed).mom")
            try model.compiledModelData().write(to: compiled)
            for url in [source, compiled] {
                let read = try ManagedObjectModel(contentsOf: url)
                let what = "seed \(seed), \(url.pathExtension)"
                #expect(read.entityVersionHashesByName == model.entityVersionHashesByName, "\(what)")
                for entity in model.entities {
                    let again = try #require(read.entitiesByName[entity.name], "\(what): \(entity.name)")
                    #expect(again.superentityName == entity.superentityName, "\(what): \(entity.name)")
                    #expect(again.propertyVersionHashes == entity.propertyVersionHashes, "\(what): \(entity.name)")
                    #expect(Set(again.attributes.map(\.name)) == Set(entity.attributes.map(\.name)), "\(what): \(entity.name)")
                    let shape = { (relationships: [RelationshipDescription]) in
                        Dictionary(uniqueKeysWithValues: relationships.map {
                            ($0.name, "\($0.destinationEntityName) \($0.inverseName ?? "-") \($0.maxCount) \($0.minCount) \($0.isOrdered)")
                        })
                    }
                    #expect(shape(again.relationships) == shape(entity.relationships), "\(what): \(entity.name)")
                }
                // Compiling what was read, reading that and compiling it again changes nothing.
                let once = try read.compiledModelData()
                let again = directory.appendingPathComponent("\(seed)-again-\(url.pathExtension).mom")
                try once.write(to: again)
                #expect(try ManagedObjectModel(contentsOf: again).compiledModelData() == once, "\(what): compiling is stable")
            }
            checked += 1
        }
        #expect(checked >= GeneratedSchemaTests.seeds.count * 9 / 10, "most generated models are valid")
    }
}
