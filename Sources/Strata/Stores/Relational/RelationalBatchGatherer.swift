import OrderedCollections

/// A save's rows gathered into ``RelationalWriteBatch``es by shape (`Key`: a table, an entity,
/// an entity and its changed columns), each handed to the connection once it holds
/// ``RelationalWriteBatch/rowsPerBatch`` rows, so that a save of a million objects never holds
/// all their values at once; the rest go in ``sendAll(to:)``, in the order their shapes first
/// came.
struct RelationalBatchGatherer<Key: Hashable> {
    private var batches: OrderedDictionary<Key, RelationalWriteBatch> = [:]

    /// Adds a row to the batch of `key`, made by `make` the first time; sends the batch when full.
    mutating func add(
        _ values: [SQLValue], of object: ManagedObjectID?, to key: Key, connection: some RelationalConnection,
        making make: () -> RelationalWriteBatch
    ) throws {
        if batches[key] == nil { batches[key] = make() }
        batches[key]?.rows.append((values, object))
        if let batch = batches[key], batch.rows.count >= RelationalWriteBatch.rowsPerBatch {
            try connection.write(batch)
            batches[key]?.rows.removeAll(keepingCapacity: true)
        }
    }

    /// Sends every row not sent yet.
    mutating func sendAll(to connection: some RelationalConnection) throws {
        for batch in batches.values where !batch.rows.isEmpty { try connection.write(batch) }
        batches.removeAll()
    }
}
