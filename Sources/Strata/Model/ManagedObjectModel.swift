/// The schema of an object graph: its entities, their properties and how they relate.
///
/// A model is a value, checked when it is made: ``init(entities:versionIdentifiers:)`` throws a
/// ``ModelError`` for a model that cannot work, so a coordinator never sees one. Being a value,
/// it is immutable and `Sendable` once made; to change a model, change its entities and make
/// a new one. (Core Data's models are mutable until a coordinator uses them; a value type gives
/// the same guarantee without a runtime rule.)
public struct ManagedObjectModel: Sendable, Hashable {
    private let storage: Storage

    /// Builds and checks a model.
    ///
    /// - Parameters:
    ///   - entities: The entities, each with its own properties; the model works out
    ///     inheritance, subentities and inverses.
    ///   - versionIdentifiers: The model version's identifiers (Xcode's
    ///     `userDefinedModelVersionIdentifier`); they play no part in compatibility.
    /// - Throws: ``ModelError`` naming the entity and property at fault.
    public init(entities: [EntityDescription], versionIdentifiers: Set<String> = []) throws {
        storage = try Storage(entities: entities, versionIdentifiers: versionIdentifiers)
    }

    /// The entities, in the order they were given, with inheritance resolved.
    public var entities: [EntityDescription] { storage.entities }
    /// The entities by name.
    public var entitiesByName: [String: EntityDescription] { storage.layouts.mapValues(\.entity) }
    public var versionIdentifiers: Set<String> { storage.versionIdentifiers }

    /// The entity named `name`, if the model has it.
    public func entity(named name: String) -> EntityDescription? {
        storage.layouts[name]?.entity
    }

    /// The storage layout of the entity named `name`.
    func layout(for name: String) -> EntityLayout? {
        storage.layouts[name]
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.entities == rhs.entities && lhs.versionIdentifiers == rhs.versionIdentifiers)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entities)
        hasher.combine(versionIdentifiers)
    }
}

extension ManagedObjectModel {
    /// The checked, resolved model, shared by every copy of the value.
    final class Storage: Sendable {
        let entities: [EntityDescription]
        let layouts: [String: EntityLayout]
        let versionIdentifiers: Set<String>

        init(entities declared: [EntityDescription], versionIdentifiers: Set<String>) throws {
            var resolver = ModelResolver(entities: declared)
            let resolved = try resolver.resolve()
            entities = resolved
            var layouts: [String: EntityLayout] = [:]
            let byName = Dictionary(uniqueKeysWithValues: resolved.map { ($0.name, $0) })
            for entity in resolved {
                layouts[entity.name] = EntityLayout(entity: entity, entities: byName)
            }
            self.layouts = layouts
            self.versionIdentifiers = versionIdentifiers
        }
    }
}
