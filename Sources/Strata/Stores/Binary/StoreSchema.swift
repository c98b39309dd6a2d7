import StrataFileFormats
/// The shape of the objects in a binary store file, recorded in the file so that it can be
/// read, dumped and verified without the model: for each entity, its attributes (name, type)
/// and relationships (name, destination, cardinality), in the order rows store them.
package struct StoreSchema: Hashable, Sendable {
    package struct Entity: Hashable, Sendable {
        package var name: String
        package var attributes: [Attribute]
        package var relationships: [Relationship]
    }

    package struct Attribute: Hashable, Sendable {
        package var name: String
        package var type: AttributeType
    }

    package struct Relationship: Hashable, Sendable {
        package var name: String
        package var destination: String
        package var isToMany: Bool
        package var isOrdered: Bool
        package var inverse: String?
    }

    package var entities: [Entity]

    /// The schema of a model's entities (those of a configuration, or all of them).
    package init(model: ManagedObjectModel, configuration: String?) {
        entities = model.entities(forConfigurationName: configuration).compactMap { entity in
            guard let layout = model.layout(for: entity.name) else { return nil }
            return Entity(
                name: entity.name,
                attributes: layout.attributes.map { Attribute(name: $0.name, type: $0.type) },
                relationships: layout.relationships.map {
                    Relationship(
                        name: $0.name, destination: $0.destinationEntityName, isToMany: $0.isToMany,
                        isOrdered: $0.isOrdered, inverse: $0.inverseName)
                })
        }
    }

    init(entities: [Entity]) {
        self.entities = entities
    }

    func index(of entity: String) -> Int? {
        entities.firstIndex { $0.name == entity }
    }
}

extension ByteWriter {
    mutating func schema(_ schema: StoreSchema) {
        varint(schema.entities.count)
        for entity in schema.entities {
            string(entity.name)
            varint(entity.attributes.count)
            for attribute in entity.attributes {
                string(attribute.name)
                byte(attribute.type.binaryTag)
            }
            varint(entity.relationships.count)
            for relationship in entity.relationships {
                string(relationship.name)
                string(relationship.destination)
                byte((relationship.isToMany ? 1 : 0) | (relationship.isOrdered ? 2 : 0) | (relationship.inverse == nil ? 0 : 4))
                if let inverse = relationship.inverse { string(inverse) }
            }
        }
    }
}

extension ByteReader {
    mutating func schema() throws -> StoreSchema {
        var entities: [StoreSchema.Entity] = []
        for _ in 0..<(try count(minimumSize: 3)) {
            let name = try string()
            var attributes: [StoreSchema.Attribute] = []
            for _ in 0..<(try count(minimumSize: 2)) {
                let attribute = try string()
                let tag = try byte()
                guard let type = AttributeType(binaryTag: tag) else { throw fail("attribute '\(attribute)' has the unknown type tag \(tag)") }
                attributes.append(.init(name: attribute, type: type))
            }
            var relationships: [StoreSchema.Relationship] = []
            for _ in 0..<(try count(minimumSize: 3)) {
                let relationship = try string()
                let destination = try string()
                let flags = try byte()
                guard flags & ~7 == 0 else { throw fail("relationship '\(relationship)' has unknown flags \(flags)") }
                let inverse = flags & 4 != 0 ? try string() : nil
                relationships.append(
                    .init(name: relationship, destination: destination, isToMany: flags & 1 != 0, isOrdered: flags & 2 != 0, inverse: inverse))
            }
            entities.append(.init(name: name, attributes: attributes, relationships: relationships))
        }
        let names = Set(entities.map(\.name))
        guard names.count == entities.count else { throw fail("the schema names an entity twice") }
        for entity in entities {
            for relationship in entity.relationships where !names.contains(relationship.destination) {
                throw fail("relationship '\(entity.name).\(relationship.name)' points at the unknown entity '\(relationship.destination)'")
            }
        }
        return StoreSchema(entities: entities)
    }
}
