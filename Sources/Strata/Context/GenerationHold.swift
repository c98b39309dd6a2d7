/// A context's hold on the generation it reads: while it lives, each of the generation's store
/// snapshots counts the context among its holders (``StoreSnapshot/hold()``), so that a store
/// keeps what pins the generation's state (a read transaction on the SQL stores) for as long as a context
/// reads it or is pinned to it, and may let it go once none does.
final class GenerationHold {
    let generation: Generation

    init(_ generation: Generation) {
        self.generation = generation
        for snapshot in generation.snapshots.values { snapshot.hold() }
    }

    deinit {
        for snapshot in generation.snapshots.values { snapshot.letGo() }
    }
}
