/// One batch of a fetch with a ``FetchRequest/fetchBatchSize``: the IDs of objects that were
/// fetched together, in the fetch's order, as faults holding no row. The first of them to fire
/// reads the rows of every one still waiting (``ObjectGraph/readBatch(_:)``), one query per 200
/// objects on the SQL stores, as Core Data's batch-faulting arrays read a batch when it is
/// first indexed; each object then holds its row until it fires, as a fetched fault does.
final class FaultBatch {
    let ids: [ManagedObjectID]
    /// The fetch's ``FetchRequest/relationshipKeyPathsForPrefetching``, followed from the batch's
    /// objects when their rows are read.
    let prefetching: [String]
    /// For the objects of one to-many relationship: objects its owner's neighbours relate to,
    /// whose rows are read with the batch's and left in the generation for their own faults
    /// (``ObjectGraph/relatedObjects(of:at:)``).
    let alongside: [ManagedObjectID]

    init(ids: [ManagedObjectID], prefetching: [String], alongside: [ManagedObjectID] = []) {
        self.ids = ids
        self.prefetching = prefetching
        self.alongside = alongside
    }
}
