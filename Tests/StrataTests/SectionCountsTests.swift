@testable import Strata
import StrataTestSupport
import Testing

/// The sections of a fetched result with running totals (issue 32's O(log n) per change):
/// seeded random section insertions, removals and count changes, across chunk splits and
/// emptied chunks, against an array of sections doing the same.
@Suite struct SectionCountsTests {
    @Test(arguments: [1 as UInt64, 2, 3])
    func itAgreesWithAnArray(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var model = (0..<150).map { SectionCounts.Section(name: "s\($0)", count: Int.random(in: 1...5, using: &random)) }
        var sections = SectionCounts(model)
        var next = 150
        for step in 0..<5_000 {
            let grows = step < 2_000 ? Int.random(in: 0..<10, using: &random) < 7 : step < 3_500 ? Int.random(in: 0..<10, using: &random) < 2 : Bool.random(using: &random)
            let choice = Int.random(in: 0..<3, using: &random)
            if model.isEmpty || (choice == 0 && grows) {
                let index = Int.random(in: 0...model.count, using: &random)
                let section = SectionCounts.Section(name: "s\(next)", count: Int.random(in: 1...5, using: &random))
                model.insert(section, at: index)
                sections.insert(section, at: index)
                next += 1
            } else if choice < 2 && !grows {
                let index = Int.random(in: 0..<model.count, using: &random)
                #expect(sections.remove(at: index).name == model.remove(at: index).name)
            } else {
                let index = Int.random(in: 0..<model.count, using: &random)
                let delta = model[index].count > 1 && Bool.random(using: &random) ? -1 : 1
                model[index].count += delta
                #expect(sections.add(delta, at: index) == model[index].count)
            }
            #expect(sections.count == model.count)
            guard !model.isEmpty else { continue }
            // Any section by index, any entry's section and start, any section's range.
            let index = Int.random(in: 0..<model.count, using: &random)
            let start = model[..<index].reduce(0) { $0 + $1.count }
            #expect(sections[index].name == model[index].name)
            #expect(sections.range(of: index) == start..<(start + model[index].count), "step \(step)")
            let entry = start + Int.random(in: 0..<model[index].count, using: &random)
            #expect(sections.locate(entry: entry) == (index, start), "step \(step)")
        }
        #expect(sections.all.map(\.name) == model.map(\.name))
        #expect(sections.all.map(\.count) == model.map(\.count))
        let total = model.reduce(0) { $0 + $1.count }
        #expect(sections.locate(entry: total) == (model.count, total))
    }

    /// Running totals with zero counts among them: a position falls in the first count that
    /// passes it.
    @Test func prefixSumsPassOverZeroCounts() {
        var sums = PrefixSums([2, 0, 3, 0, 0, 1])
        #expect(sums.locate(0) == (0, 0))
        #expect(sums.locate(1) == (0, 1))
        #expect(sums.locate(2) == (2, 0))
        #expect(sums.locate(4) == (2, 2))
        #expect(sums.locate(5) == (5, 0))
        #expect(sums.locate(6).index == 6)
        #expect(sums.sum(before: 3) == 5)
        sums.add(4, at: 1)
        #expect(sums.locate(2) == (1, 0))
        #expect(sums.sum(before: 6) == 10)
    }
}
