import Foundation
import Strata

/// Checks a Core Data XML store whole, as `strata verify` checks the other stores: that it
/// loads with the model that wrote it (given, or carried in its metadata) — every object of an
/// entity the model has, every value of its attribute's type, every `idrefs` naming an object
/// of the file — and that every relationship with an inverse is met by it.
struct XMLStoreVerifier {
    let url: URL
    var model: ManagedObjectModel?
    private(set) var objectCounts: [String: Int] = [:]
    var problems: [String] = []

    init(url: URL) {
        self.url = url
    }

    var objectCount: Int { objectCounts.values.reduce(0, +) }

    mutating func run() async throws {
        let model = try self.model ?? StoreFileKind.model(for: url, given: nil)
        let coordinator: PersistentStoreCoordinator, store: PersistentStore
        do {
            (coordinator, store) = try await StoreFileKind.openReadOnly(url, model: model)
        } catch let error as StoreError {
            problems.append(error.description)
            return
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let (counts, found) = try await context.perform { context in
            var counts: [String: Int] = [:]
            var problems: [String] = []
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                let objects = try context.fetch(request)
                counts[entity.name] = objects.count
                for object in objects {
                    for (name, relationship) in entity.relationshipsByName.sorted(by: { $0.key < $1.key }) {
                        guard let inverse = relationship.inverseName, !relationship.isTransient else { continue }
                        for target in try Self.targets(of: object, name) where try !Self.targets(of: target, inverse).contains(object) {
                            problems.append(
                                "\(object.objectID).\(name) leads to \(target.objectID), whose \(inverse) does not lead back")
                        }
                    }
                }
            }
            return (counts, problems)
        }
        try await coordinator.removePersistentStore(store)
        objectCounts = counts
        problems += found
    }

    private static func targets(of object: ManagedObject, _ key: String) throws -> [ManagedObject] {
        switch try object.value(forKey: key) {
        case let many as [ManagedObject]: many
        case let many as Set<ManagedObject>: Array(many)
        case let one as ManagedObject: [one]
        default: []
        }
    }
}
