/// Where one stored row's values are: a ``Row`` of their own, or a position in a table's
/// columns (``StoredColumns``), read value by value without a ``Row`` made.
///
/// What a fetch hands the objects it makes: an object fetched from a table reads its values
/// from the columns the generation holds until it needs a row of its own (it is changed,
/// merged or refreshed), so that fetching a million objects does not copy a million rows.
package enum StoredRow: Sendable {
    case row(Row)
    case column(StoredColumns, Int)

    /// The values as a row, made when they are in columns.
    var row: Row {
        switch self {
        case .row(let row): row
        case .column(let stored, let position): stored.columns.row(at: position)
        }
    }

    var version: Int64 {
        switch self {
        case .row(let row): row.version
        case .column(let stored, let position): stored.columns.versions[position]
        }
    }

    func attribute(_ slot: Int) -> AttributeValue? {
        switch self {
        case .row(let row): row.attributes[slot]
        case .column(let stored, let position): stored.attributes[slot].column[position]
        }
    }

    func relationship(_ slot: Int) -> RelationshipTargets {
        switch self {
        case .row(let row): row.relationships[slot]
        case .column(let stored, let position): stored.columns.relationships[slot][position]
        }
    }
}

/// A table's columns behind one reference, so that each object reading them holds a pointer,
/// not a copy of the column arrays (one retain, not three). Never changed once made.
package final class StoredColumns: Sendable {
    let columns: RowColumns
    /// The attribute columns again, each in a box, for reads by value: a method called on a
    /// column read out of an array is called on a copy (a retain and release of each of the
    /// column's arrays, the compiler being unable to prove the array unchanged during the call),
    /// but on a column in a class's `let` it is called in place.
    let attributes: [Box]

    final class Box: Sendable {
        let column: AttributeColumn

        init(_ column: AttributeColumn) {
            self.column = column
        }
    }

    package init(_ columns: RowColumns) {
        self.columns = columns
        attributes = columns.attributes.map(Box.init)
    }

    /// No rows: what every empty table shares.
    static let empty = StoredColumns(RowColumns())
}
