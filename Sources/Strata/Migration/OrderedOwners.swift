/// The objects a copy-based migration step wrote that own an ordered to-many: kept in the
/// targets' rows (a one-to-many), the order is written by the owner's save, which finds no
/// target copied after it. They are saved again once every object is copied.
struct OrderedOwners {
    private let entities: Set<String>
    private var rows: [ManagedObjectID: Row] = [:]

    init(destination: ManagedObjectModel) {
        entities = Set(destination.entities.filter { $0.relationships.contains { $0.isToMany && $0.isOrdered } }.map(\.name))
    }

    /// Notes the owners among the objects `changes` inserted, at the versions the save gave them.
    mutating func note(_ changes: ChangeSet, versions: [ManagedObjectID: Int64]) {
        for (id, row) in changes.inserted where entities.contains(id.entityName) {
            var saved = row
            saved.version = versions[id] ?? row.version
            rows[id] = saved
        }
    }

    /// The saves that write the owners again, `size` objects each.
    func saves(of size: Int) -> [ChangeSet] {
        let owners = Array(rows)
        return stride(from: 0, to: owners.count, by: size).map { start in
            var changes = ChangeSet()
            for (id, row) in owners[start..<min(start + size, owners.count)] { changes.updated[id] = row }
            return changes
        }
    }
}
