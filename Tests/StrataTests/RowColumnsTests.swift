import Foundation
import OrderedCollections
@testable import Strata
import StrataTestSupport
import Testing

/// Rows stored as columns read back exactly as they went in: every attribute type, absent values
/// before and after the first one, a column that meets a value of another type, strings that
/// are not ASCII, and runs copied in bulk (as folding a table does) against values appended one
/// by one.
@Suite struct RowColumnsTests {
    /// One value of each kind a column stores in its own way, and some it boxes.
    static func randomValue(_ kind: Int, using random: inout SplitMix64) -> AttributeValue? {
        guard Int.random(in: 0..<5, using: &random) != 0 else { return nil }
        let number = Int64.random(in: -1_000_000...1_000_000, using: &random)
        return switch kind {
        case 0: .integer16(Int16(truncatingIfNeeded: number))
        case 1: .integer32(Int32(truncatingIfNeeded: number))
        case 2: .integer64(number &* 1_000_003)
        case 3: .boolean(number % 2 == 0)
        case 4: .float(Float(number) / 7)
        case 5: .double(Double(number) / 3)
        case 6: .date(Date(timeIntervalSinceReferenceDate: Double(number) / 1_000))
        case 7: .string(["", "ascii \(number)", "é\(number)ü", "🦒 \(number)", String(repeating: "x", count: Int(abs(number) % 40))][Int(abs(number) % 5)])
        case 8: .decimal(Decimal(number) / 100)
        default: .binaryData(Data("\(number)".utf8))
        }
    }

    @Test func everyKindOfValueReadsBackAsItWasAppended() throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for kind in 0..<10 {
            var column = AttributeColumn()
            var expected: [AttributeValue?] = []
            // Absent values first: the column learns its type from the first value only.
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                column.append(nil)
                expected.append(nil)
            }
            for _ in 0..<300 {
                let value = Self.randomValue(kind, using: &random)
                column.append(value)
                expected.append(value)
            }
            #expect(column.count == expected.count)
            #expect((0..<column.count).map { column[$0] } == expected, "kind \(kind), seed \(seed)")
            #expect((0..<column.count).map { column.isAbsent($0) } == expected.map { $0 == nil }, "kind \(kind), seed \(seed)")
        }
    }

    @Test func aValueOfAnotherTypeBoxesTheColumnAndLosesNothing() {
        var column = AttributeColumn()
        let values: [AttributeValue?] = [.integer64(5), nil, .integer64(-3), .string("five"), nil, .integer16(2), .double(.nan)]
        for value in values { column.append(value) }
        #expect(column.count == values.count)
        #expect(column[0] == .integer64(5) && column[1] == nil && column[3] == .string("five") && column[5] == .integer16(2))
        guard case .double(let nan)? = column[6] else {
            Issue.record("the double was not kept")
            return
        }
        #expect(nan.isNaN)
        #expect(column.integer(at: 0) == 5 && column.integer(at: 3) == nil && column.stringValue(at: 3) == "five")
    }

    @Test func typedReadsAgreeWithTheRowsOnes() throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let rows = (0..<400).map { index in
            Row(attributes: (0..<10).map { Self.randomValue($0, using: &random) }, relationships: [], version: Int64(index))
        }
        let columns = RowColumns(rows)
        var cursor = ColumnCursor(columns: StoredColumns(columns))
        for (position, row) in rows.enumerated() {
            cursor.position = position
            for slot in 0..<10 {
                #expect(cursor.isAbsent(slot) == row.isAbsent(slot), "seed \(seed)")
                #expect(cursor.integer(slot) == row.integer(slot), "seed \(seed)")
                #expect(cursor.real(slot) == row.real(slot), "seed \(seed)")
                #expect(cursor.string(slot) == row.string(slot), "seed \(seed)")
                #expect(cursor.date(slot) == row.date(slot), "seed \(seed)")
            }
            #expect(columns.row(at: position) == row, "seed \(seed)")
        }
    }

    @Test func runsCopiedInBulkEqualValuesAppendedOneByOne() throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let layout = try #require(try libraryModel().layout(for: "Book"))
        func randomRow(_ version: Int64) -> Row {
            var row = Row(emptyFor: layout)
            for slot in row.attributes.indices where Bool.random(using: &random) {
                row.attributes[slot] = AttributeValue.zero(of: layout.attributes[slot].type)
            }
            row.version = version
            return row
        }
        let source = RowColumns((0..<200).map { randomRow($0) })
        var copied = RowColumns()
        var expected: [Row] = []
        var start = 0
        while start < source.count {
            let end = min(source.count, start + Int.random(in: 0...30, using: &random))
            copied.append(contentsOf: source, start..<end)
            expected += (start..<end).map { source.row(at: $0) }
            let extra = randomRow(1_000 + Int64(start))
            copied.append(extra)
            expected.append(extra)
            start = end
        }
        #expect((0..<copied.count).map { copied.row(at: $0) } == expected, "seed \(seed)")
    }

    @Test func invalidUTF8FromAFileIsRefusedAndAppendsNothing() {
        var column = AttributeColumn()
        let plain = column.appendString(utf8: ArraySlice("plain".utf8))
        let accented = column.appendString(utf8: ArraySlice("crème".utf8))
        let invalid = column.appendString(utf8: [0x61, 0xFF, 0x62])
        #expect(plain && accented && !invalid)
        #expect(column.count == 2 && column[0] == .string("plain") && column[1] == .string("crème"))
    }

    @Test func relationshipTargetsReadBackAsAppendedInEveryForm() throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        // Two destination entities (a to-one to a parent entity), then a store of 300 entities
        // (more spaces than a to-one column numbers), then a to-many.
        let spaces = (0..<300).map { ObjectIDSpace.make(store: "S", entityName: "E\($0)") }
        func target(among count: Int) -> RelationshipTargets {
            Int.random(in: 0..<4, using: &random) == 0
                ? .toOne(nil)
                : .toOne(ManagedObjectID(space: spaces[Int.random(in: 0..<count, using: &random)], number: Int64.random(in: 1...1_000_000, using: &random)))
        }
        for (spaceCount, endsWithToMany) in [(1, false), (2, false), (300, false), (2, true)] {
            var column = RelationshipColumn()
            var expected: [RelationshipTargets] = []
            for _ in 0..<400 {
                let targets = target(among: spaceCount)
                column.append(targets)
                expected.append(targets)
            }
            if endsWithToMany {
                let many = RelationshipTargets.toMany([ManagedObjectID(space: spaces[0], number: 7)])
                column.append(many)
                expected.append(many)
            }
            #expect(column.count == expected.count)
            #expect((0..<column.count).map { column[$0] } == expected, "\(spaceCount) spaces, seed \(seed)")
            // Runs copied in bulk, into a column that has seen the same spaces or others.
            var copied = RelationshipColumn()
            copied.append(target(among: 2))
            var copiedExpected = [copied[0]]
            copied.append(contentsOf: column, 10..<200)
            copiedExpected += expected[10..<200]
            copied.append(contentsOf: column, 200..<expected.count)
            copiedExpected += expected[200...]
            #expect((0..<copied.count).map { copied[$0] } == copiedExpected, "\(spaceCount) spaces, seed \(seed)")
        }
    }
}
