
/// How to migrate a store from one model to another: one ``EntityMapping`` per source and
/// destination entity, as Core Data's `NSMappingModel`.
///
/// Infer one with ``inferred(from:to:)`` (Core Data's lightweight rules, and lossless type
/// widenings), read one from Core Data's Xcode or compiled mapping model or a JSON file
/// (``init(contentsOf:source:destination:policies:)``), or build one in Swift — starting from
/// an inferred one and replacing what needs custom work.
public struct MappingModel: Sendable {
    public var entityMappings: [EntityMapping]

    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
    }

    /// The mapping whose destination is `entity`.
    public func mapping(forDestination entity: String) -> EntityMapping? {
        entityMappings.first { $0.destinationEntityName == entity }
    }

    /// The (first) mapping whose source is `entity`; a Core Data mapping model may map one
    /// source entity more than once.
    public func mapping(forSource entity: String) -> EntityMapping? {
        entityMappings.first { $0.sourceEntityName == entity }
    }

    /// This mapping with the mapping for `destination` (or, for a removal, `source`) replaced.
    public func replacing(_ mapping: EntityMapping) -> MappingModel {
        var copy = self
        copy.entityMappings.removeAll {
            ($0.destinationEntityName != nil && $0.destinationEntityName == mapping.destinationEntityName)
                || ($0.sourceEntityName != nil && $0.sourceEntityName == mapping.sourceEntityName)
        }
        copy.entityMappings.append(mapping)
        return copy
    }

    /// Source entity name → destination entity name, for every entity that carries over.
    package var entityRenames: [String: String] {
        Dictionary(
            entityMappings.compactMap { m in m.sourceEntityName.flatMap { s in m.destinationEntityName.map { (s, $0) } } },
            uniquingKeysWith: { a, _ in a })
    }
}
