import Foundation
import Strata
import StrataPostgres
import StrataTestSupport

/// What the stress tests check of a store once the work is done.
enum StoreChecks {
    /// Every relationship whose inverse does not point back, over every object of every entity,
    /// described so that a failure says which objects disagree.
    static func inverseDisagreements(_ context: isolated ManagedObjectContext, model: ManagedObjectModel) throws -> [String] {
        var disagreements: [String] = []
        for entity in model.entities {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) {
                for relationship in entity.relationships {
                    guard let inverse = relationship.inverseName else { continue }
                    for target in try targets(of: object, relationship.name) {
                        guard (try? context.existingObject(with: target.objectID)) != nil else {
                            disagreements.append("\(object.objectID).\(relationship.name) holds \(target.objectID), which is not in the store")
                            continue
                        }
                        guard !(try targets(of: target, inverse).contains(object)) else { continue }
                        disagreements.append(
                            "\(object.objectID).\(relationship.name) holds \(target.objectID), whose \(inverse) does not hold it")
                    }
                }
            }
        }
        return disagreements
    }

    /// The objects one relationship holds, whatever its kind.
    static func targets(of object: ManagedObject, _ key: String) throws -> [ManagedObject] {
        switch try object.value(forKey: key) {
        case let one as ManagedObject: [one]
        case let many as Set<ManagedObject>: Array(many)
        case let ordered as [ManagedObject]: ordered
        default: []
        }
    }

    /// The store types the stress suites run on: the binary, SQLite and XML stores, and the
    /// PostgreSQL store when a test server is given.
    static var storeTypes: [StoreType] {
        [.binary, .sqlite, .xml] + (PostgresTestServer.isAvailable ? [.postgreSQL] : [])
    }

    /// A new store of `type`: a file named `name` in `directory`, or a schema of its own on the
    /// PostgreSQL test server.
    static func newStoreURL(_ type: StoreType, named name: String, in directory: URL) async throws -> URL {
        switch type {
        case .postgreSQL: try await PostgresTestServer.newStoreURL()
        case .sqlite: directory.appendingPathComponent(name + ".sqlite")
        case .xml: directory.appendingPathComponent(name + ".xml")
        default: directory.appendingPathComponent(name + ".store")
        }
    }

    /// A fresh coordinator on the store file, after `coordinator` let it go.
    static func reopen(_ url: URL, type: StoreType, leaving coordinator: PersistentStoreCoordinator, model: ManagedObjectModel) async throws
        -> PersistentStoreCoordinator
    {
        if let store = coordinator.persistentStores.first { try await coordinator.removePersistentStore(store) }
        let fresh = PersistentStoreCoordinator(managedObjectModel: model)
        try await fresh.addPersistentStore(type: type, at: url)
        return fresh
    }
}

extension StoreChecks {
    /// Every object of every entity, with its attributes and the objects its relationships
    /// hold, as text: two stores hold the same objects when their states are equal.
    static func state(of coordinator: PersistentStoreCoordinator, model: ManagedObjectModel) async throws -> [ManagedObjectID: [String]] {
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            var state: [ManagedObjectID: [String]] = [:]
            for entity in model.entities {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) {
                    var fields = try entity.attributes.map { "\($0.name)=\(try object.value(forKey: $0.name) ?? "nil")" }
                    for relationship in entity.relationships {
                        let ids = try targets(of: object, relationship.name).map(\.objectID.description).sorted()
                        fields.append("\(relationship.name)=\(ids)")
                    }
                    state[object.objectID] = fields
                }
            }
            return state
        }
    }
}
