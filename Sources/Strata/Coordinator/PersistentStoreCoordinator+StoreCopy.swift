import Foundation

extension PersistentStoreCoordinator {
    /// Moves a store's objects to a new store at `url`, of `type` — another file, or another
    /// kind of store (binary to SQLite, SQLite to PostgreSQL) — and puts the new store in the
    /// old one's place in the coordinator: Core Data's `migratePersistentStore(_:to:options:type:)`
    /// ("Save As"). The old store is removed from the coordinator and left as it was.
    ///
    /// As Core Data's, it reads the whole store into memory, then writes it in one save. Every
    /// object gets a new ID in the new store (contexts should reset, or fetch again); attribute
    /// values are copied as stored (transformable values byte for byte, externally stored data
    /// into the new store), relationships between the store's objects as they were, ordered
    /// ones in their order. Derived attributes are computed again by the new store's save.
    ///
    /// - Parameters:
    ///   - store: A store of this coordinator.
    ///   - url: Where the new store goes; nothing may be there yet.
    ///   - options: The new store's options, as for ``addPersistentStore(type:configuration:at:options:)``.
    ///   - type: The new store's type.
    /// - Returns: The new store, now part of the coordinator.
    /// - Throws: ``PersistenceError`` `.storeNotFound` for a store that is not this
    ///   coordinator's, `.storeExists` when a store is at `url` already; what reading the old
    ///   store or saving the new one throws. On any error while copying, the new store is
    ///   destroyed and the old one stays in the coordinator; if the new store, once written,
    ///   will not open here, it is left at `url` and the old store is added back.
    @discardableResult
    public func migratePersistentStore(
        _ store: PersistentStore, to url: URL, options: [String: any Sendable] = [:], type: StoreType
    ) async throws -> PersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw PersistenceError(.storeNotFound, "the store \(store.identifier) is not part of this coordinator")
        }
        guard try !Self.hasStore(at: url, type: type) else {
            throw PersistenceError(.storeExists, "a \(type) store is at \(url.absoluteString) already: a migration writes only to a new place")
        }
        let scratch = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        do {
            let destination = try await scratch.addPersistentStore(type: type, configuration: store.configurationName, at: url, options: options)
            try await Self.copyObjects(of: store, from: self, to: scratch)
            try await scratch.removePersistentStore(destination)
        } catch {
            try? await scratch.destroyPersistentStore(at: url, type: type, options: options)
            throw error
        }
        try removePersistentStore(store)
        do {
            return try await addPersistentStore(type: type, configuration: store.configurationName, at: url, options: options)
        } catch {
            // The new store is whole but will not open here: the old one goes back in its place.
            if store.type != .inMemory {
                _ = try? await addPersistentStore(type: store.type, configuration: store.configurationName, at: store.url, options: store.options)
            }
            throw error
        }
    }

    /// Whether a store of `type` is at `url`: a file that is not empty, or a PostgreSQL
    /// schema with a store's metadata.
    private static func hasStore(at url: URL, type: StoreType) throws -> Bool {
        if url.isFileURL { return !StoreFileMigration.hasNoStoreFile(at: url) }
        if let incremental = incrementalStoreClass(forStoreType: type) as? any PackageIncrementalStore.Type {
            return try incremental.existingMetadata(at: url) != nil
        }
        return false
    }

    /// One object of the store being copied, as values that cross from one context to another.
    private struct CopiedObject: Sendable {
        let id: ManagedObjectID
        let entityName: String
        var attributes: [(key: String, value: AttributeValue?)] = []
        var relationships: [(key: String, isToMany: Bool, targets: [ManagedObjectID])] = []
    }

    /// Reads every object of `store` through a context of `source`, and inserts the same
    /// objects, with the same values and links, through a context of `destination`, in one save.
    private static func copyObjects(
        of store: PersistentStore, from source: PersistentStoreCoordinator, to destination: PersistentStoreCoordinator
    ) async throws {
        let model = source.managedObjectModel
        let entities = model.entities(forConfigurationName: store.configurationName).filter { !$0.isAbstract }
        let storeID = store.identifier
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: source)
        let copied = try await reader.perform { context in
            var copied: [CopiedObject] = []
            for entity in entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) where object.objectID.persistentStoreIdentifier == storeID {
                    copied.append(try Self.copy(object, of: entity))
                }
                context.reset()  // a store read whole once, not held twice
            }
            return copied
        }
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: destination)
        try await writer.perform { context in
            var made: [ManagedObjectID: ManagedObject] = [:]
            for object in copied {
                let new = try context.insertNewObject(forEntityName: object.entityName)
                for (key, value) in object.attributes { try new.setPrimitiveValue(value, forKey: key) }
                made[object.id] = new
            }
            // To-ones first, then to-manys, so that an ordered to-many's order is the last word.
            for pass in [false, true] {
                for object in copied {
                    guard let new = made[object.id] else { continue }
                    for relationship in object.relationships where relationship.isToMany == pass {
                        let targets = relationship.targets.compactMap { made[$0] }
                        try new.setValue(pass ? targets : targets.first, forKey: relationship.key)
                    }
                }
            }
            try context.save()
        }
    }

    /// An object's stored attributes and its links, as values.
    private static func copy(_ object: ManagedObject, of entity: EntityDescription) throws -> CopiedObject {
        var copy = CopiedObject(id: object.objectID, entityName: entity.name)
        let layout = object.layout
        for attribute in layout.attributes where !attribute.isTransient && attribute.derivationExpression == nil {
            var value = try object.primitiveAttributeValue(forKey: attribute.name)
            if case .externalDataReference? = value {
                // The bytes themselves: the new store keeps them where it keeps such values.
                value = try (object.value(forKey: attribute.name) as? Data).map(AttributeValue.binaryData)
            }
            copy.attributes.append((attribute.name, value))
        }
        for relationship in layout.relationships where !relationship.isTransient {
            let value = try object.value(forKey: relationship.name)
            let targets: [ManagedObject] =
                switch value {
                case let object as ManagedObject: [object]
                case let objects as [ManagedObject]: objects
                case let objects as Set<ManagedObject>: Array(objects)
                default: []
                }
            copy.relationships.append((relationship.name, relationship.isToMany, targets.map(\.objectID)))
        }
        return copy
    }
}
