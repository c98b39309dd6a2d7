extension ManagedObjectID {
    /// The entity of the object, as Core Data's `objectID.entity`: from the model of the
    /// coordinator that added the ID's store most recently, or, for a temporary ID or a store no
    /// coordinator of this process has added, from the model made last that has an entity of
    /// that name. History code reads it (`change.changedObjectID.entity.name`).
    ///
    /// Where no model of this process has the entity, a description with only its name
    /// (``entityName``), which is all an ID knows.
    public var entity: EntityDescription {
        IDEntities.entity(named: entityName, store: persistentStoreIdentifier)
    }
}

/// The models object IDs' entities are described by: by store (the model of the coordinator
/// that added it last), and by entity name (the model made last with it). By name, the latest
/// entity of each name is kept; by store, a weak ``ModelLink`` (the model's entities, without
/// the model), alive while the model's entities are: a server opening many stores keeps
/// nothing of those whose models are gone (their entries are swept as stores are added).
enum IDEntities {
    private struct WeakLink {
        weak var link: ModelLink?
    }

    private static let byStore = ThreadLocked<[String: WeakLink]>([:])
    private static let byName = ThreadLocked<[String: EntityDescription]>([:])

    /// Records a model's entities as the latest of their names.
    static func record(_ entities: [EntityDescription]) {
        byName.withLock { known in
            for entity in entities { known[entity.name] = entity }
        }
    }

    /// Records the model a coordinator added a store with.
    static func record(store identifier: String, model: ManagedObjectModel) {
        guard let link = model.entities.first?.modelLink.link else { return }
        byStore.withLock { links in
            links = links.filter { $0.value.link != nil }
            links[identifier] = WeakLink(link: link)
        }
    }

    static func entity(named name: String, store: String?) -> EntityDescription {
        if let store, let entity = byStore.withLock({ $0[store]?.link })?.entity(named: name) { return entity }
        return byName.withLock { $0[name] } ?? EntityDescription(name: name)
    }
}
