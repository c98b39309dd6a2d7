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
/// that added it last), and by entity name (the model made last with it). Each holds a
/// ``ModelLink`` (the model's entities, without the model), one per store and name a process
/// sees.
enum IDEntities {
    private static let byStore = ThreadLocked<[String: ModelLink]>([:])
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
        byStore.withLock { $0[identifier] = link }
    }

    static func entity(named name: String, store: String?) -> EntityDescription {
        if let store, let entity = byStore.withLock({ $0[store] })?.entity(named: name) { return entity }
        return byName.withLock { $0[name] } ?? EntityDescription(name: name)
    }
}
