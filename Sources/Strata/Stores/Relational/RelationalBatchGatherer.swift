import OrderedCollections

/// A save's rows gathered into ``RelationalWriteBatch``es by shape (`Key`: a table, an entity,
/// an entity and its changed columns), each handed to the connection once it holds
/// ``RelationalWriteBatch/rowsPerBatch`` rows, so that a save of a million objects never holds
/// all their values at once; the rest go in ``sendAll(to:)``, in the order their shapes first
/// came.
struct RelationalBatchGatherer<Key: Hashable> {
    private var batches: OrderedDictionary<Key, RelationalWriteBatch> = [:]
    /// The last key added to, and its batch's position: a save adds row after row of one
    /// shape, and comparing keys costs less than hashing them (strings, for a join table).
    private var last: (key: Key, index: Int)?

    /// Adds a row to the batch of `key`, made by `make` the first time; sends the batch when full.
    mutating func add(
        _ values: [SQLValue], of object: ManagedObjectID?, to key: Key, connection: some RelationalConnection,
        making make: () -> RelationalWriteBatch
    ) throws {
        let index: Int
        if let last, last.key == key {
            index = last.index
        } else if let found = batches.index(forKey: key) {
            index = found
        } else {
            index = batches.count
            batches[key] = make()
        }
        last = (key, index)
        batches.values[index].rows.append((values, object))
        if batches.values[index].rows.count >= RelationalWriteBatch.rowsPerBatch {
            try connection.write(batches.values[index])
            batches.values[index].rows.removeAll(keepingCapacity: true)
        }
    }

    /// Sends every row not sent yet.
    mutating func sendAll(to connection: some RelationalConnection) throws {
        for batch in batches.values where !batch.rows.isEmpty { try connection.write(batch) }
        batches.removeAll()
        last = nil
    }
}
