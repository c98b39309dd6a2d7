/// The columns a SQL store's read fills, row by row (``ColumnReadingStore``): the decoder
/// appends each row's stored values and to-one targets, then ``appendUnstored()``, then its
/// reference and version; the to-manys it leaves unread are made columns of their batches'
/// faults at the end (``finished(unread:)``).
package struct ColumnsBeingRead: Sendable {
    package var references: [Int64] = []
    package var versions: [Int64] = []
    package var attributes: [AttributeColumn]
    package var relationships: [RelationshipColumn]
    /// The layout's empty row: what a property without a column (a transient one) holds.
    private let empty: Row
    private let unstoredAttributes: [Int]
    /// Relationship slots neither a to-one's columns nor an unread to-many fill.
    private let unfilledRelationships: [Int]

    /// Columns for rows of `layout`, of which the decoder fills the attribute slots
    /// `storedAttributes` and the relationship slots `filledRelationships` (its to-ones, and
    /// the to-manys it leaves unread).
    package init(layout: EntityLayout, storedAttributes: [Int], filledRelationships: [Int]) {
        empty = layout.emptyRow
        attributes = Array(repeating: AttributeColumn(), count: layout.attributes.count)
        relationships = Array(repeating: RelationshipColumn(), count: layout.relationships.count)
        let stored = Set(storedAttributes)
        unstoredAttributes = layout.attributes.indices.filter { !stored.contains($0) }
        let filled = Set(filledRelationships)
        unfilledRelationships = layout.relationships.indices.filter { !filled.contains($0) }
    }

    /// Appends the values of the properties without a column.
    package mutating func appendUnstored() {
        for slot in unstoredAttributes { attributes[slot].append(empty.attributes[slot]) }
        for slot in unfilledRelationships { relationships[slot].append(empty.relationships[slot]) }
    }

    /// The columns, each unread to-many a column of its batch's faults (owned by the rows'
    /// references, in order).
    package func finished(unread: [(slot: Int, batch: ToManyBatch)]) -> StoredColumns {
        var relationships = relationships
        for toMany in unread { relationships[toMany.slot] = RelationshipColumn(unreadBy: toMany.batch, owners: references) }
        return StoredColumns(RowColumns(versions: versions, attributes: attributes, relationships: relationships))
    }
}
