import Foundation

/// A binary store file read as it is, without a model or a coordinator: what the `strata` tool
/// inspects, verifies and dumps.
///
/// Opening reads the header and the metadata record only; ``forEachChunk(_:)`` then streams
/// the objects a chunk at a time, so that memory stays bounded whatever the file's size.
public struct BinaryStoreFile: Sendable {
    /// An entity as the file records it.
    public struct Entity: Sendable, Hashable {
        public let name: String
        /// Attribute names and types, in the order rows store them.
        public let attributes: [(name: String, type: AttributeType)]
        /// Relationships, in the order rows store them.
        public let relationships: [Relationship]

        public static func == (lhs: Entity, rhs: Entity) -> Bool {
            lhs.name == rhs.name && lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
                && lhs.attributes.map(\.type) == rhs.attributes.map(\.type) && lhs.relationships == rhs.relationships
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    /// A relationship as the file records it.
    public struct Relationship: Sendable, Hashable {
        public let name: String
        public let destination: String
        public let isToMany: Bool
        public let isOrdered: Bool
        public let inverse: String?
    }

    /// One stored object.
    public struct Object: Sendable {
        public let objectID: ManagedObjectID
        public let version: Int64
        /// Attribute values by name (attributes without a value are absent).
        public let attributeValues: [String: AttributeValue]
        /// Related objects by relationship name, in stored order.
        public let relatedObjectIDs: [String: [ManagedObjectID]]
    }

    /// One chunk of objects, or why it could not be read.
    public struct Chunk: Sendable {
        /// The chunk's position in the file, from 0.
        public let index: Int
        /// Where its record starts, and how many bytes it takes (length prefix included).
        public let offset: Int
        public let size: Int
        /// The entity of its objects; `nil` when the chunk is damaged.
        public let entity: String?
        public let objects: [Object]
        /// Why the chunk could not be read; `nil` when its checksum holds and it decodes.
        public let error: StoreError?
    }

    public let url: URL
    /// The format version the file was written in.
    public let formatVersion: Int
    /// The store's metadata (UUID, type, model version hashes, the user's keys).
    public let metadata: [String: MetadataValue]
    /// The entities whose objects the file holds, as it records them.
    public let entities: [Entity]
    /// The file's size in bytes.
    public let fileSize: Int
    private let schema: StoreSchema

    /// Reads the header and the metadata record of the store at `url`.
    ///
    /// - Throws: ``StoreError`` when it is not a readable binary store.
    public init(contentsOf url: URL) throws {
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        let header = try reader.readHeader()
        self.url = url
        formatVersion = Int(reader.formatVersion)
        metadata = header.metadata
        schema = header.schema
        entities = header.schema.entities.map { entity in
            Entity(
                name: entity.name, attributes: entity.attributes.map { ($0.name, $0.type) },
                relationships: entity.relationships.map {
                    Relationship(name: $0.name, destination: $0.destination, isToMany: $0.isToMany, isOrdered: $0.isOrdered, inverse: $0.inverse)
                })
        }
        fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    /// The model the file records: the whole model that wrote it, as its metadata carries it
    /// (``ManagedObjectModel/init(cachedInStoreMetadata:)``). A store written before Strata kept
    /// its model gives a model made from its schema instead: its entities' attributes (all
    /// optional: the schema does not record optionality), relationships and inverses, without
    /// inheritance. With it, and ``PersistentStoreOption/skipsModelVersionCheck`` on a read-only
    /// store, tools can fetch from a store whose model they do not have.
    public func recordedModel() throws -> ManagedObjectModel {
        if let cached = try ManagedObjectModel(cachedInStoreMetadata: metadata) { return cached }
        return try ManagedObjectModel(
            entities: entities.map { entity in
                EntityDescription(
                    name: entity.name,
                    attributes: entity.attributes.map { AttributeDescription(name: $0.name, type: $0.type, isOptional: true) },
                    relationships: entity.relationships.map {
                        RelationshipDescription(
                            name: $0.name, destination: $0.destination, inverse: $0.inverse, isToMany: $0.isToMany,
                            isOrdered: $0.isOrdered)
                    })
            })
    }

    /// The store's UUID.
    public var storeIdentifier: String { metadata[PersistentStore.storeUUIDKey]?.stringValue ?? "" }

    /// Streams the object chunks in file order. A damaged chunk is reported (its ``Chunk/error``
    /// set) and reading goes on with the next record when its length can be trusted; a file
    /// that ends early, or a final record that is missing, throws.
    public func forEachChunk(_ body: (Chunk) throws -> Void) throws {
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        _ = try reader.readHeader()
        let store = storeIdentifier
        try reader.readChunks(schema: schema, storeIdentifier: store) { index, offset, size, result in
            switch result {
            case .success(let (entityIndex, rows)):
                let entity = schema.entities[entityIndex]
                let objects = rows.map { reference, row in
                    var values: [String: AttributeValue] = [:]
                    for (attribute, value) in zip(entity.attributes, row.attributes) {
                        if let value { values[attribute.name] = value }
                    }
                    var related: [String: [ManagedObjectID]] = [:]
                    for (relationship, targets) in zip(entity.relationships, row.relationships) {
                        related[relationship.name] = targets.objectIDs
                    }
                    return Object(
                        objectID: ManagedObjectID(entityName: entity.name, key: .permanent(store: store, reference: reference)),
                        version: row.version, attributeValues: values, relatedObjectIDs: related)
                }
                try body(Chunk(index: index, offset: offset, size: size, entity: entity.name, objects: objects, error: nil))
            case .failure(let error):
                try body(Chunk(index: index, offset: offset, size: size, entity: nil, objects: [], error: error))
            }
        }
    }
}
