import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data's mutable model API, against generated models (issue 33): each model the
/// generator makes (hierarchies, many-to-many and ordered pairs, self-relationships, names
/// that clash) is built again as Core Data code builds one at run time — `NSEntityDescription()`
/// with its properties set one by one, `destinationEntity` and `inverseRelationship` set to
/// descriptions, `parent.subentities = [child]` instead of naming the parent, then
/// `model.entities = […]` on `NSManagedObjectModel()` — and must be the same model: Core Data's
/// version hashes (`formats/` version-hash page: a model is identified by them), the same
/// hierarchy and the same properties, and objects saved through it to SQLite.
///
/// A failure names its seed: `STRATA_MUTABLE_MODEL_SEED=<seed>` runs that model alone.
@Suite struct MutableModelAPIPropertyTests {
    static let seeds: [UInt64] = {
        if let seed = ProcessInfo.processInfo.environment["STRATA_MUTABLE_MODEL_SEED"].flatMap(UInt64.init) { return [seed] }
        var random = SplitMix64(seed: 0x0D_E1_5C0D_E)
        return (0..<60).map { _ in random.next() }
    }()

    /// The model, built again with the mutable API from what `model` answers at run time.
    static func rebuilt(_ model: ManagedObjectModel) -> ManagedObjectModel {
        var entities: [EntityDescription] = []
        for original in model.entities {
            var entity = EntityDescription()
            entity.name = original.name
            entity.isAbstract = original.isAbstract
            var properties: [any PropertyDescription] = []
            for declared in original.attributes {
                var attribute = AttributeDescription()
                attribute.name = declared.name
                attribute.attributeType = declared.attributeType
                attribute.isOptional = declared.isOptional
                attribute.isIndexed = declared.isIndexed
                properties.append(attribute)
            }
            for declared in original.relationships {
                var relationship = RelationshipDescription()
                relationship.name = declared.name
                relationship.destinationEntity = declared.destinationEntity
                relationship.inverseRelationship = declared.inverseRelationship
                relationship.maxCount = declared.maxCount
                relationship.minCount = declared.minCount
                relationship.isOptional = declared.isOptional
                relationship.isOrdered = declared.isOrdered
                relationship.deleteRule = declared.deleteRule
                properties.append(relationship)
            }
            entity.properties = properties
            entity.indexes = original.indexes
            entity.uniquenessConstraints = original.uniquenessConstraints
            entities.append(entity)
        }
        // Parents name their children, as Core Data code sets `subentities`; no child names its parent.
        for index in entities.indices {
            let children = model.entities[index].subentities.map(\.name)
            entities[index].subentities = entities.filter { children.contains($0.name) }
        }
        var built = ManagedObjectModel()
        built.entities = entities
        return built
    }

    @Test func aModelBuiltWithTheMutableAPIIsTheSameModel() throws {
        var (children, inverses, ordered) = (0, 0, 0)
        defer {
            // The generated models reach what the mutable API must get right.
            if Self.seeds.count >= 50 { #expect(children > 20 && inverses > 50 && ordered > 5, "\(children) \(inverses) \(ordered)") }
        }
        for seed in Self.seeds {
            var generator = ModelGenerator(seed: seed)
            let model = try generator.makeModel()
            children += model.entities.filter { $0.superentity != nil }.count
            inverses += model.entities.flatMap(\.relationships).filter { $0.inverseName != nil }.count
            ordered += model.entities.flatMap(\.relationships).filter(\.isOrdered).count
            let built = Self.rebuilt(model)
            guard built.validationError == nil else {
                Issue.record("seed \(seed): the rebuilt model is refused: \(built.validationError!)")
                continue
            }
            #expect(built.entityVersionHashesByName == model.entityVersionHashesByName, "seed \(seed): Core Data's version hashes")
            for original in model.entities {
                guard let entity = built.entitiesByName[original.name] else {
                    Issue.record("seed \(seed): \(original.name) is missing")
                    continue
                }
                #expect(entity.superentity?.name == original.superentity?.name, "seed \(seed): \(original.name)'s parent")
                #expect(Set(entity.subentities.map(\.name)) == Set(original.subentities.map(\.name)), "seed \(seed)")
                #expect(entity.properties.map(\.name) == original.properties.map(\.name), "seed \(seed): \(original.name)'s properties")
                for relationship in original.relationships {
                    let same = entity.relationshipsByName[relationship.name]
                    #expect(same?.destinationEntity?.name == relationship.destinationEntity?.name, "seed \(seed)")
                    #expect(same?.inverseRelationship?.name == relationship.inverseRelationship?.name, "seed \(seed)")
                    #expect(same?.isToMany == relationship.isToMany && same?.isOrdered == relationship.isOrdered, "seed \(seed)")
                }
            }
        }
    }

    /// A model built with the mutable API works: an object of each concrete entity saved to
    /// SQLite and read back through a context of the model.
    @Test func aModelBuiltWithTheMutableAPIStoresObjects() async throws {
        for seed in Self.seeds.prefix(12) {
            var generator = ModelGenerator(seed: seed)
            let built = Self.rebuilt(try generator.makeModel())
            let coordinator = try await makeCoordinator(built, .sqlite)
            let names = built.entities.filter { !$0.isAbstract }.map(\.name).sorted()
            let counts = try await backgroundContext(coordinator).perform { context in
                for name in names { try context.insertNewObject(forEntityName: name) }
                try context.save()
                context.reset()
                return try names.map { name in
                    var request = FetchRequest<ManagedObject>(entityName: name)
                    request.includesSubentities = false
                    return try context.count(for: request)
                }
            }
            #expect(counts == Array(repeating: 1, count: names.count), "seed \(seed)")
        }
    }
}
