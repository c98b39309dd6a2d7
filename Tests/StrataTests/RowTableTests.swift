import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// A generation's table of rows, against a plain dictionary doing the same: seeded random
/// batches of every size (so both the overlay and the folding path run), with every earlier
/// table kept and checked unchanged, as generations keep theirs.
@Suite struct RowTableTests {
    static func row(_ value: Int64, layout: EntityLayout) -> Row {
        var row = Row(emptyFor: layout)
        row.attributes[0] = .string("label \(value)")
        row.version = value
        return row
    }

    static func contents(_ table: RowTable) -> [String] {
        table.map { "\($0.key):\($0.value.version)" }
    }

    @Test func randomBatchesAgreeWithADictionary() throws {
        let layout = try #require(try libraryModel().layout(for: "Tag"))
        let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var table = try RowTable(references: [5, 3, 9], rows: [5, 3, 9].map { Self.row($0, layout: layout) })
        var expected: [Int64: Int64] = [5: 5, 3: 3, 9: 9]
        var history: [(RowTable, [Int64: Int64])] = []
        var version: Int64 = 100
        for _ in 0..<300 {
            history.append((table, expected))
            let size = [1, 2, 5, 40, 400][Int.random(in: 0..<5, using: &random)]
            var batch: [(reference: Int64, row: Row?)] = []
            for _ in 0..<size {
                let reference = Int64.random(in: 1...600, using: &random)
                version += 1
                if Int.random(in: 0..<4, using: &random) == 0 {
                    batch.append((reference, nil))
                    expected[reference] = nil
                } else {
                    batch.append((reference, Self.row(version, layout: layout)))
                    expected[reference] = version
                }
            }
            table.apply(batch)
            #expect(table.count == expected.count, "seed \(seed)")
            #expect(Self.contents(table) == expected.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }, "seed \(seed)")
            for reference in Int64(0)...601 {
                #expect(table[reference]?.version == expected[reference], "p\(reference), seed \(seed)")
            }
        }
        for (old, contents) in history {
            #expect(Self.contents(old) == contents.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }, "an earlier table changed")
        }
    }

    @Test func loadingSortsRowsAndRefusesADuplicate() throws {
        let layout = try #require(try libraryModel().layout(for: "Tag"))
        let table = try RowTable(references: [30, 10, 20], rows: [30, 10, 20].map { Self.row($0, layout: layout) })
        #expect(Self.contents(table) == ["10:10", "20:20", "30:30"])
        #expect(table[20]?.version == 20 && table[25] == nil)
        #expect(throws: RowTable.DuplicateReference.self) {
            try RowTable(references: [4, 7, 4], rows: [4, 7, 4].map { Self.row($0, layout: layout) })
        }
    }
}
