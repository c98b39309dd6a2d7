import Foundation

extension PersistentStoreCoordinator {
    /// Makes the store object for a store type.
    static func makeStore(
        type: StoreType, configuration: String?, url: URL?, options: [String: any Sendable]
    ) throws -> PersistentStore {
        switch type {
        case .inMemory:
            return InMemoryStore(configurationName: configuration, options: options)
        default:
            throw PersistenceError(
                .unknownStoreType, "no store class is registered for the store type '\(type)'")
        }
    }
}
