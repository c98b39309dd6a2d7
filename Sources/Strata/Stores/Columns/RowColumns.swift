/// Rows of one entity stored as columns: one ``AttributeColumn`` per attribute slot, one array
/// of targets per relationship slot and one of versions, all indexed by position.
///
/// What ``RowTable``'s base holds instead of an array of ``Row``s; a ``Row`` is made on demand
/// by ``row(at:)``. The shape (how many slots of each kind) is the first row's.
package struct RowColumns: Sendable {
    private(set) var versions: [Int64] = []
    /// One column per attribute slot (none before the first row).
    private(set) var attributes: [AttributeColumn] = []
    /// One column of targets per relationship slot.
    private(set) var relationships: [RelationshipColumn] = []
    private var shaped = false

    init() {}

    /// Empty columns for rows of `attributeCount` attributes and `relationshipCount` relationships.
    init(attributeCount: Int, relationshipCount: Int) {
        shape(like: attributeCount, relationshipCount)
    }

    /// Columns a decoder filled itself, each `versions.count` long (a store's read straight
    /// into columns, ``SQLiteStore/storedRows(ofEntity:matching:sortedBy:offset:limit:in:)``).
    package init(versions: [Int64], attributes: [AttributeColumn], relationships: [RelationshipColumn]) {
        precondition(
            attributes.allSatisfy { $0.count == versions.count } && relationships.allSatisfy { $0.count == versions.count },
            "every column has a value per row")
        self.versions = versions
        self.attributes = attributes
        self.relationships = relationships
        shaped = true
    }

    /// Rows in the order given.
    init(_ rows: some Sequence<Row>) {
        for row in rows { append(row) }
    }

    var count: Int { versions.count }

    func row(at position: Int) -> Row {
        Row(
            attributes: attributes.map { $0[position] },
            relationships: relationships.map { $0[position] },
            version: versions[position])
    }

    mutating func append(_ row: Row) {
        shape(like: row.attributes.count, row.relationships.count)
        precondition(
            row.attributes.count == attributes.count && row.relationships.count == relationships.count,
            "a table's rows have one entity's shape")
        for slot in attributes.indices { attributes[slot].append(row.attributes[slot]) }
        for slot in relationships.indices { relationships[slot].append(row.relationships[slot]) }
        versions.append(row.version)
    }

    /// Appends one row whose values `fill` appends to each column, for decoders that make no
    /// ``Row``. `fill` must append one value to every column; when it throws, the columns are
    /// left uneven and must be thrown away (loading a damaged file fails as a whole).
    mutating func appendRow(
        version: Int64, _ fill: (inout [AttributeColumn], inout [RelationshipColumn]) throws -> Void
    ) rethrows {
        try fill(&attributes, &relationships)
        versions.append(version)
    }

    /// The same rows with their slots rearranged: slot `i` of the result is slot `slots[i]` of
    /// these columns, or absent (`nil`) in every row. What a file whose schema lists the
    /// properties in another order than the model needs.
    func rearranged(attributes attributeSlots: [Int?], relationships relationshipSlots: [Int?]) -> RowColumns {
        var result = RowColumns(attributeCount: 0, relationshipCount: 0)
        result.versions = versions
        result.attributes = attributeSlots.map { slot in
            if let slot { return attributes[slot] }
            var column = AttributeColumn()
            for _ in 0..<count { column.append(nil) }
            return column
        }
        result.relationships = relationshipSlots.map { slot in
            if let slot { return relationships[slot] }
            var column = RelationshipColumn()
            for _ in 0..<count { column.append(.toOne(nil)) }
            return column
        }
        return result
    }

    /// Positions `range` of `other`, appended column by column.
    mutating func append(contentsOf other: RowColumns, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        shape(like: other.attributes.count, other.relationships.count)
        precondition(
            other.attributes.count == attributes.count && other.relationships.count == relationships.count,
            "a table's rows have one entity's shape")
        for slot in attributes.indices { attributes[slot].append(contentsOf: other.attributes[slot], range) }
        for slot in relationships.indices { relationships[slot].append(contentsOf: other.relationships[slot], range) }
        versions.append(contentsOf: other.versions[range])
    }

    mutating func reserveCapacity(_ capacity: Int) {
        versions.reserveCapacity(capacity)
        for slot in relationships.indices { relationships[slot].reserveCapacity(capacity) }
    }

    private mutating func shape(like attributeCount: Int, _ relationshipCount: Int) {
        guard !shaped else { return }
        shaped = true
        attributes = Array(repeating: AttributeColumn(), count: attributeCount)
        relationships = Array(repeating: RelationshipColumn(), count: relationshipCount)
    }
}
