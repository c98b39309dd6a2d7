import Foundation
import Strata
import StrataTestSupport
import Testing

/// Makes random, valid models from a seed, shaped to meet the schema rules' hard cases
/// (`formats/coredata-sqlite-schema.md`): hierarchies whose sibling subentities declare
/// properties of one name (so their columns take suffixes), many-to-many pairs whose join
/// columns clash (`Z_14USERS`, `Z_14USERS1`), ordered and unordered sides, one-to-one pairs,
/// self-relationships, a name in two cases (`url`, `URL`: one column name), indexed
/// attributes and fetch indexes that give one index name twice.
struct ModelGenerator {
    /// Few names, so that they clash often.
    static let entityNames = ["Album", "Genre", "Item", "Message", "Note", "Person", "Reaction", "Song", "Tag", "User"]
    static let propertyNames = ["date", "genre", "items", "name", "notes", "owner", "parent", "tags", "text", "url", "URL", "users", "value"]
    static let attributeTypes: [AttributeType] = [
        .string, .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean, .date, .binaryData, .uuid, .uri,
    ]

    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double(random.next() % 1_000) < probability * 1_000
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    mutating func pick<T>(_ elements: [T]) -> T {
        elements[int(0...(elements.count - 1))]
    }

    /// The generator of `seed` and its model, or nil with the refusal recorded as a test issue
    /// (a valid generated model that Strata refuses is a failure of the test that made it).
    static func modelOrRecordedRefusal(seed: UInt64) -> (model: ManagedObjectModel, generator: ModelGenerator)? {
        var generator = ModelGenerator(seed: seed)
        do {
            return (try generator.makeModel(), generator)
        } catch {
            Issue.record("seed \(seed): the generated model is refused: \(error)")
            return nil
        }
    }

    mutating func makeModel() throws -> ManagedObjectModel {
        var names = Self.entityNames
        names.shuffle(using: &random)
        var entities: [EntityDescription] = []
        for name in names.prefix(int(2...7)) {
            // A superentity among those made before: hierarchies two and three deep.
            let superentity = !entities.isEmpty && chance(0.45) ? pick(entities).name : nil
            entities.append(EntityDescription(name: name, superentity: superentity))
        }
        var lineage = Lineage(entities)
        for index in entities.indices {
            for _ in 0..<int(0...3) {
                guard let name = lineage.freeName(on: entities[index].name, from: Self.propertyNames.shuffled(using: &random)) else { break }
                var attribute = AttributeDescription(name: name, type: pick(Self.attributeTypes), isOptional: true)
                attribute.isIndexed = chance(0.25)
                entities[index].attributes.append(attribute)
                lineage.take(name, on: entities[index].name)
            }
        }
        for _ in 0..<int(1...8) {
            let source = int(0...(entities.count - 1)), destination = int(0...(entities.count - 1))
            addPair(from: source, to: destination, in: &entities, &lineage)
        }
        if chance(0.6) { addSiblingToOnes(&entities, &lineage) }
        for index in entities.indices {
            addIndexes(to: &entities[index], lineage: lineage)
        }
        return try ManagedObjectModel(entities: entities)
    }

    /// A relationship and its inverse: to-one ↔ to-many (either ordered or not), many-to-many,
    /// one-to-one, or a to-many that is its own inverse.
    private mutating func addPair(from source: Int, to destination: Int, in entities: inout [EntityDescription], _ lineage: inout Lineage) {
        let (a, b) = (entities[source].name, entities[destination].name)
        let kind = int(0...3)
        if kind == 3, source == destination || chance(0.3) {
            guard let name = lineage.freeName(on: a, from: Self.propertyNames.shuffled(using: &random)) else { return }
            entities[source].relationships.append(
                RelationshipDescription(name: name, destination: a, inverse: name, isToMany: true, isOrdered: chance(0.3)))
            lineage.take(name, on: a)
            return
        }
        guard let forward = lineage.freeName(on: a, from: Self.propertyNames.shuffled(using: &random)) else { return }
        lineage.take(forward, on: a)
        guard let backward = lineage.freeName(on: b, from: Self.propertyNames.shuffled(using: &random)) else {
            lineage.release(forward, on: a)
            return
        }
        lineage.take(backward, on: b)
        let (forwardToMany, backwardToMany): (Bool, Bool) =
            switch kind {
            case 0: (false, true)
            case 1: (true, true)
            case 2: (false, false)
            default: (true, false)
            }
        entities[source].relationships.append(
            RelationshipDescription(
                name: forward, destination: b, inverse: backward, isToMany: forwardToMany, isOrdered: forwardToMany && chance(0.5)))
        entities[destination].relationships.append(
            RelationshipDescription(
                name: backward, destination: a, inverse: forward, isToMany: backwardToMany, isOrdered: backwardToMany && chance(0.5)))
    }

    /// Two subentities of one entity each get a to-one of one name whose inverse is an ordered
    /// to-many (Xcode's `Song.genre` and `Album.genre` to `Genre.songs` and `Genre.albums`):
    /// their keys and their `Z_FOK_` columns clash in their table.
    private mutating func addSiblingToOnes(_ entities: inout [EntityDescription], _ lineage: inout Lineage) {
        let parents = Set(entities.compactMap(\.superentityName)).sorted()
        let families = parents.map { parent in entities.indices.filter { entities[$0].superentityName == parent } }.filter { $0.count >= 2 }
        guard !families.isEmpty else { return }
        let family = pick(families)
        let (first, second) = (family[0], family[1])
        let destination = int(0...(entities.count - 1))
        let target = entities[destination].name
        let candidates = Self.propertyNames.shuffled(using: &random)
        guard let name = candidates.first(where: { lineage.freeName(on: entities[first].name, from: [$0]) != nil
            && lineage.freeName(on: entities[second].name, from: [$0]) != nil })
        else { return }
        for child in [first, second] {
            lineage.take(name, on: entities[child].name)
            guard let inverse = lineage.freeName(on: target, from: Self.propertyNames.shuffled(using: &random)) else {
                lineage.release(name, on: entities[child].name)
                continue
            }
            lineage.take(inverse, on: target)
            entities[child].relationships.append(RelationshipDescription(name: name, destination: target, inverse: inverse))
            let index = entities.firstIndex { $0.name == target } ?? destination
            entities[index].relationships.append(
                RelationshipDescription(name: inverse, destination: entities[child].name, inverse: name, isToMany: true, isOrdered: true))
        }
    }

    /// Fetch indexes over the entity's own attributes and to-ones: named after a property (the
    /// index an `indexed` property gives has that name too) or `by…`, with one or two elements.
    private mutating func addIndexes(to entity: inout EntityDescription, lineage: Lineage) {
        let properties = entity.attributes.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name)
        guard !properties.isEmpty else { return }
        for _ in 0..<int(0...2) {
            let first = pick(properties)
            var elements = [FetchIndexDescription.Element(first, ascending: chance(0.7))]
            if chance(0.3), let second = properties.filter({ $0 != first }).first { elements.append(.init(second)) }
            let name = chance(0.5) ? pick(properties) : "by" + first.prefix(1).uppercased() + first.dropFirst()
            entity.indexes.append(FetchIndexDescription(name: name, elements: elements))
        }
    }

    /// Which property names each entity's lineage (its ancestors and descendants) uses: a name
    /// may be declared once per lineage, and siblings may share one.
    struct Lineage {
        private var supers: [String: String] = [:]
        private var taken: [String: Set<String>] = [:]

        init(_ entities: [EntityDescription]) {
            for entity in entities { supers[entity.name] = entity.superentityName }
        }

        private func ancestors(of entity: String) -> [String] {
            var result: [String] = []
            var current = supers[entity] ?? nil
            while let name = current {
                result.append(name)
                current = supers[name] ?? nil
            }
            return result
        }

        private func related(to entity: String) -> [String] {
            [entity] + ancestors(of: entity) + supers.keys.filter { ancestors(of: $0).contains(entity) }
        }

        func freeName(on entity: String, from candidates: [String]) -> String? {
            let used = related(to: entity).reduce(into: Set<String>()) { $0.formUnion(taken[$1] ?? []) }
            return candidates.first { !used.contains($0) }
        }

        mutating func take(_ name: String, on entity: String) { taken[entity, default: []].insert(name) }
        mutating func release(_ name: String, on entity: String) { taken[entity]?.remove(name) }
    }
}
