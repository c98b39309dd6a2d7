import HashTreeCollections

/// One entity's rows in one store, as a generation holds them: reference number → row.
///
/// Persistent like the generation: a commit makes a new table that shares the old one's rows.
/// As ``AttributeIndex``, in two layers. The base is reference numbers in ascending order and
/// the rows beside them as columns (``RowColumns``), built in one go when a store loads or a
/// commit changes a large share of the table, and never changed after, so every later
/// generation shares it; a lookup is a binary search, and makes the ``Row`` it returns.
/// Smaller commits record their rows in a persistent hash tree on top (a removed row as
/// `nil`), O(log n) per change, until the overlay outgrows a quarter of the base and the next
/// commit folds it in. (A hash tree alone cost an allocation per node for every row loaded or
/// saved: a quarter of opening a store, and of saving 100,000 new objects; rows as arrays of
/// enum values, an allocation or more per row and several times the memory: issue 15.)
///
/// Rows iterate in ascending reference order, base and overlay merged, each made as a ``Row``;
/// loops over every row that need only some of its values iterate ``stored`` instead (a
/// ``StoredRow`` for each: a position in the columns), and so do fetches, which hand objects
/// their ``StoredRow``.
struct RowTable: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    typealias Element = (key: Int64, value: Row)

    private var references: [Int64] = []
    private var base = StoredColumns.empty
    private var columns: RowColumns { base.columns }
    private var overlay: TreeDictionary<Int64, Row?> = [:]
    /// How many rows the table holds.
    private(set) var count = 0

    /// A reference number that two rows share: what loading a damaged file can find.
    struct DuplicateReference: Error {
        let reference: Int64
    }

    init() {}

    init(dictionaryLiteral elements: (Int64, Row)...) {
        self.init()
        apply(elements.map { ($0.0, $0.1) })
    }

    /// A table of `rows` in any order, built flat in one go.
    ///
    /// - Throws: ``DuplicateReference`` when two rows have the same reference number.
    init(rows loaded: [(reference: Int64, row: Row)]) throws(DuplicateReference) {
        try self.init(references: loaded.map(\.reference), rows: loaded.map(\.row))
    }

    /// A table of the rows `rows`, whose reference numbers are `references` (in any order, one
    /// per row), built flat in one go.
    ///
    /// - Throws: ``DuplicateReference`` when two rows have the same reference number.
    init(references: [Int64], rows: [Row]) throws(DuplicateReference) {
        precondition(references.count == rows.count, "one reference number per row")
        try self.init(references: references, columns: RowColumns(rows))
    }

    /// A table of the rows in `columns`, whose reference numbers are `references` (in any
    /// order, one per position): what loading a file calls, without a ``Row`` per row kept.
    ///
    /// - Throws: ``DuplicateReference`` when two rows have the same reference number.
    init(references: [Int64], columns: RowColumns) throws(DuplicateReference) {
        precondition(references.count == columns.count, "one reference number per row")
        if zip(references, references.dropFirst()).allSatisfy({ $0 < $1 }) {
            self.references = references
            base = StoredColumns(columns)
        } else {
            let order = references.indices.sorted { references[$0] < references[$1] }
            self.references = order.map { references[$0] }
            for (a, b) in zip(self.references, self.references.dropFirst()) where a == b {
                throw DuplicateReference(reference: a)
            }
            var sorted = RowColumns()
            sorted.reserveCapacity(order.count)
            for position in order { sorted.append(contentsOf: columns, position..<position + 1) }
            base = StoredColumns(sorted)
        }
        count = references.count
    }

    var isEmpty: Bool { count == 0 }

    subscript(reference: Int64) -> Row? {
        if let changed = overlay[reference] { return changed }
        return basePosition(of: reference).map { columns.row(at: $0) }
    }

    func contains(_ reference: Int64) -> Bool {
        if let changed = overlay[reference] { return changed != nil }
        return basePosition(of: reference) != nil
    }

    /// A row where it is: in the overlay, or a position in the base's columns (nothing copied).
    subscript(stored reference: Int64) -> StoredRow? {
        if let changed = overlay[reference] { return changed.map(StoredRow.row) }
        return basePosition(of: reference).map { .column(base, $0) }
    }

    /// Sets or removes rows: in the overlay, or when the batch is large next to the table, by
    /// building a new flat base with the batch folded in. A reference given twice keeps its last row.
    mutating func apply(_ batch: [(reference: Int64, row: Row?)]) {
        guard !batch.isEmpty else { return }
        if batch.count * 4 >= count || (overlay.count + batch.count) * 4 > references.count {
            fold(batch)
            return
        }
        for (reference, row) in batch {
            let inBase = basePosition(of: reference) != nil
            let existed = overlay[reference].map { $0 != nil } ?? inBase
            // A removal of a base row is recorded (`nil`); one of an overlay-only row leaves nothing.
            if inBase || row != nil {
                overlay[reference] = .some(row)
            } else {
                overlay.removeValue(forKey: reference)
            }
            count += (row != nil ? 1 : 0) - (existed ? 1 : 0)
        }
    }

    /// The base and overlay merged with `batch`, into a new flat base: one pass over each,
    /// sorted (a batch of new objects, numbered in order, needs no sorting).
    private mutating func fold(_ batch: [(reference: Int64, row: Row?)]) {
        var changes = Self.sortedLastWins(batch)
        if !overlay.isEmpty {
            let earlier = Self.sortedLastWins(overlay.map { (reference: $0.key, row: $0.value) })
            changes = Self.merged(earlier, changes)
        }
        var mergedReferences: [Int64] = []
        var mergedColumns = RowColumns()
        mergedReferences.reserveCapacity(references.count + changes.count)
        mergedColumns.reserveCapacity(references.count + changes.count)
        var position = 0
        for (reference, row) in changes {
            // The base rows before this change are copied as one run, column by column.
            let run = position
            while position < references.count, references[position] < reference { position += 1 }
            mergedReferences.append(contentsOf: references[run..<position])
            mergedColumns.append(contentsOf: columns, run..<position)
            if position < references.count, references[position] == reference { position += 1 }  // replaced or removed
            if let row {
                mergedReferences.append(reference)
                mergedColumns.append(row)
            }
        }
        mergedReferences.append(contentsOf: references[position...])
        mergedColumns.append(contentsOf: columns, position..<references.count)
        references = mergedReferences
        base = StoredColumns(mergedColumns)
        overlay = [:]
        count = references.count
    }

    /// `batch` in ascending reference order, with one entry per reference: its last.
    ///
    /// A commit's batch comes from a dictionary, in no order. The order is found on the
    /// reference numbers alone (sorting the entries themselves moved a row, with its retains,
    /// at every step: most of folding 1,000,000 new rows), then the entries are gathered once.
    private static func sortedLastWins(_ batch: [(reference: Int64, row: Row?)]) -> [(reference: Int64, row: Row?)] {
        let references = batch.map(\.reference)
        if zip(references, references.dropFirst()).allSatisfy({ $0 < $1 }) { return batch }
        // Ties keep the batch's order, so that the last entry for a reference is the one kept.
        let order = references.indices.sorted { (references[$0], $0) < (references[$1], $1) }
        var sorted: [(reference: Int64, row: Row?)] = []
        sorted.reserveCapacity(batch.count)
        for (rank, index) in order.enumerated() where rank + 1 == order.count || references[order[rank + 1]] != references[index] {
            sorted.append(batch[index])
        }
        return sorted
    }

    /// Two sorted lists of changes as one; where both change a reference, `later`'s wins.
    private static func merged(
        _ earlier: [(reference: Int64, row: Row?)], _ later: [(reference: Int64, row: Row?)]
    ) -> [(reference: Int64, row: Row?)] {
        var result: [(reference: Int64, row: Row?)] = []
        result.reserveCapacity(earlier.count + later.count)
        var (first, second) = (0, 0)
        while first < earlier.count || second < later.count {
            if second == later.count || (first < earlier.count && earlier[first].reference < later[second].reference) {
                result.append(earlier[first])
                first += 1
            } else {
                if first < earlier.count, earlier[first].reference == later[second].reference { first += 1 }
                result.append(later[second])
                second += 1
            }
        }
        return result
    }

    private func basePosition(of reference: Int64) -> Int? {
        var low = 0, high = references.count
        while low < high {
            let middle = (low + high) / 2
            if references[middle] < reference { low = middle + 1 } else { high = middle }
        }
        return low < references.count && references[low] == reference ? low : nil
    }

    var underestimatedCount: Int { count }

    func makeIterator() -> Iterator {
        Iterator(stored: stored.makeIterator())
    }

    /// The rows in ascending reference order, materialised as ``Row``s.
    struct Iterator: IteratorProtocol {
        var stored: StoredRows.Iterator

        mutating func next() -> Element? {
            stored.next().map { ($0.reference, $0.row.row) }
        }
    }

    /// Every row where it is, in ascending reference order: a position in the base's columns,
    /// or the overlay's row; no ``Row`` made for those in the base.
    var stored: StoredRows {
        StoredRows(references: references, base: base, changes: overlay.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// The base's positions merged with the overlay's changes, both in ascending reference order.
    struct StoredRows: Sequence {
        let references: [Int64]
        let base: StoredColumns
        /// The overlay, sorted: a row replaces or adds one; `nil` removes one.
        let changes: [(reference: Int64, row: Row?)]

        func makeIterator() -> Iterator {
            Iterator(rows: self)
        }

        struct Iterator: IteratorProtocol {
            let rows: StoredRows
            var position = 0
            var change = 0

            mutating func next() -> (reference: Int64, row: StoredRow)? {
                let references = rows.references, changes = rows.changes
                while position < references.count || change < changes.count {
                    let fromBase = position < references.count ? references[position] : Int64.max
                    guard change < changes.count, changes[change].reference <= fromBase else {
                        position += 1
                        return (fromBase, .column(rows.base, position - 1))
                    }
                    let (reference, row) = changes[change]
                    change += 1
                    if reference == fromBase { position += 1 }
                    if let row { return (reference, .row(row)) }
                }
                return nil
            }
        }
    }

    // MARK: Reading columns

    /// Every row's relationship targets, slot by slot, with its reference number.
    func forEachTargets(_ body: (Int64, RelationshipTargets) throws -> Void) rethrows {
        // Read once: `columns` is the base's, and reading it per row copied its arrays' references.
        let relationships = columns.relationships
        for (reference, row) in stored {
            switch row {
            case .column(_, let position):
                for column in relationships { try body(reference, column[position]) }
            case .row(let row):
                for targets in row.relationships { try body(reference, targets) }
            }
        }
    }

    /// The rows that pass `test`, tested on the columns where they are in the base.
    func rows(matching test: RowTest) -> [(reference: Int64, row: StoredRow)] {
        var matches: [(reference: Int64, row: StoredRow)] = []
        var cursor = ColumnCursor(columns: base)
        for (reference, row) in stored {
            switch row {
            case .column(_, let position):
                cursor.position = position
                if test.matches(cursor) { matches.append((reference, row)) }
            case .row(let changed):
                if test.matches(changed) { matches.append((reference, row)) }
            }
        }
        return matches
    }
}
