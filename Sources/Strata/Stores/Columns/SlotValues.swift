import Foundation

/// One row's attribute values read by slot, typed: what ``RowTest`` reads, from a ``Row`` or
/// from a position of a table's columns (``ColumnCursor``) without making a row.
protocol SlotValues {
    func isAbsent(_ slot: Int) -> Bool
    /// The value of an integer attribute (16, 32 or 64 bits).
    func integer(_ slot: Int) -> Int64?
    /// The value of a double or float attribute, or an integer one's as a double.
    func real(_ slot: Int) -> Double?
    func string(_ slot: Int) -> String?
    func date(_ slot: Int) -> Date?
}

extension Row: SlotValues {
    func isAbsent(_ slot: Int) -> Bool { attributes[slot] == nil }

    func integer(_ slot: Int) -> Int64? { attributes[slot]?.integerValue }

    func real(_ slot: Int) -> Double? {
        switch attributes[slot] {
        case .double(let v)?: v
        case .float(let v)?: Double(v)
        case let other?: other.integerValue.map(Double.init)
        case nil: nil
        }
    }

    func string(_ slot: Int) -> String? {
        if case .string(let value)? = attributes[slot] { value } else { nil }
    }

    func date(_ slot: Int) -> Date? {
        if case .date(let value)? = attributes[slot] { value } else { nil }
    }
}

/// A position in a table's columns, read as a row: one cursor moves over every position of a
/// scan (so that the columns are retained once, not per row).
struct ColumnCursor: SlotValues {
    let columns: StoredColumns
    var position = 0

    init(columns: StoredColumns) {
        self.columns = columns
    }

    func isAbsent(_ slot: Int) -> Bool { columns.attributes[slot].column.isAbsent(position) }
    func integer(_ slot: Int) -> Int64? { columns.attributes[slot].column.integer(at: position) }
    func real(_ slot: Int) -> Double? { columns.attributes[slot].column.real(at: position) }
    func string(_ slot: Int) -> String? { columns.attributes[slot].column.stringValue(at: position) }
    func date(_ slot: Int) -> Date? { columns.attributes[slot].column.dateValue(at: position) }
}
