/// One save's rows grouped by the table they change (a store's entity), so that a commit takes
/// each table and its indexes out of the generation once per save, not once per object: the
/// per-object round trips through nested dictionaries keyed by strings were most of the cost
/// of committing a large save.
struct TableEdits {
    struct Table: Hashable {
        let store: String
        let entity: String
    }

    /// A row to put at a reference number; a `nil` row deletes it.
    struct Edit {
        let objectID: ManagedObjectID
        let reference: Int64
        let row: Row?
        /// Whether the object is new: its reference must not be in the table yet.
        let isInsert: Bool
    }

    private(set) var groups: [Table: [Edit]] = [:]

    /// The ID space of the previous edit and its group: saves mostly run many objects of one
    /// entity in a row, and checking that an ID is in the same (interned) space as the last
    /// costs less than hashing the table's two strings.
    private var last: (space: ObjectIDSpace, group: Dictionary<Table, [Edit]>.Index)?

    mutating func add(_ edit: Edit, store: String) {
        if let last, last.space === edit.objectID.space {
            groups.values[last.group].append(edit)
            return
        }
        let table = Table(store: store, entity: edit.objectID.entityName)
        groups[table, default: []].append(edit)
        guard let index = groups.index(forKey: table) else { return }
        last = (edit.objectID.space, index)
    }
}
