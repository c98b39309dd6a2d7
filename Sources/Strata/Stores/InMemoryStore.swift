/// A store whose objects live in memory only, for as long as its coordinator has it: for tests,
/// caches and scratch work.
///
/// It has every behaviour of a store except durability: reference numbers, URIs, metadata and
/// optimistic locking work as with a file store.
public final class InMemoryStore: PersistentStore, @unchecked Sendable {
    // Sendable for the reason given on PersistentStore: this subclass adds no stored state.

    init(configurationName: String?, options: [String: any Sendable]) {
        super.init(type: .inMemory, configurationName: configurationName, url: nil, options: options)
    }
}
