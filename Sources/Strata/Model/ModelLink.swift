/// What ties an entity or relationship taken from a ``ManagedObjectModel`` to the rest of
/// that model, so that ``EntityDescription/superentity``,
/// ``RelationshipDescription/destinationEntity`` and the like answer with descriptions, as Core
/// Data's do, while descriptions stay values.
///
/// The link holds the model's resolved entities without links of their own and links each
/// one on the way out, so nothing refers back to the link: no cycle, and an entity kept after
/// its model is gone keeps only what it needs to answer.
final class ModelLink: Sendable {
    private let entities: [String: EntityDescription]
    /// The model made of the entities, once made: held weakly, as it holds the linked entities.
    private let model = ThreadLocked(WeakModel())

    private struct WeakModel {
        weak var storage: ManagedObjectModel.Storage?
    }

    /// Links the resolved entities of a model, given without links.
    init(entities: [String: EntityDescription]) {
        self.entities = entities
    }

    /// The model's entity named `name`, linked.
    func entity(named name: String) -> EntityDescription? {
        entities[name]?.linked(to: self)
    }

    /// Records the model made of the entities, whose layouts ``layout(named:)`` gives.
    func attach(_ storage: ManagedObjectModel.Storage) {
        model.withLock { $0.storage = storage }
    }

    /// The layout of the entity named `name`: the model's own while the model is alive (the
    /// one its contexts use), else one made again from the linked entities.
    func layout(named name: String) -> EntityLayout? {
        if let layout = model.withLock({ $0.storage?.layouts[name] }) { return layout }
        guard let entity = entity(named: name) else { return nil }
        return EntityLayout(entity: entity, entities: entities.mapValues { $0.linked(to: self) })
    }
}

/// A description's link to its model, which takes no part in the description's equality: a
/// description read from a model equals the same description made in code.
struct ModelLinkField: Sendable, Hashable {
    var link: ModelLink?

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

extension EntityDescription {
    /// The entity, and each of its relationships, linked to a model.
    func linked(to link: ModelLink) -> EntityDescription {
        var copy = self
        // Linking changes nothing a version hash covers: keep the model's hash, which setting
        // `relationships` forgets.
        let hash = copy.resolvedVersionHash
        copy.modelLink.link = link
        for index in copy.relationships.indices { copy.relationships[index].modelLink.link = link }
        for index in copy.inheritedRelationships.indices { copy.inheritedRelationships[index].modelLink.link = link }
        copy.resolvedVersionHash = hash
        return copy
    }
}
