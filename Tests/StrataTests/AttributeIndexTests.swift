import Foundation
import HashTreeCollections
@testable import Strata
import StrataTestSupport
import Testing

/// The index against the plainest model of it, a dictionary of sets, through random commits
/// small (changes on top of the base) and large (the base rebuilt), and older copies unchanged.
@Suite struct AttributeIndexTests {
    typealias Model = [AttributeValue?: Set<Int64>]

    static func expectSame(_ index: AttributeIndex, _ model: Model, values: [AttributeValue?], _ context: String) {
        for value in values {
            #expect(Set(index.references(equalTo: value)) == model[value, default: []], "\(context): \(String(describing: value))")
        }
        let expected = model.flatMap { value, references in value.map { value in references.map { (value, $0) } } ?? [] }
        let sorted = index.sortedEntries()
        #expect(sorted.count == expected.count, "\(context)")
        #expect(Set(sorted.map { "\($0.0) \($0.1)" }) == Set(expected.map { "\($0.0) \($0.1)" }), "\(context)")
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.0.compare(to: $1.0) != .orderedDescending }, "\(context): in order")
    }

    @Test func randomCommitsKeepTheIndexRight() {
        let seed = ProcessInfo.processInfo.environment["STRATA_INDEX_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let values: [AttributeValue?] = [nil] + (0..<40).map { AttributeValue.string("v\($0)") }
        var current: [Int64: AttributeValue?] = [:]  // reference → its value, for the objects that exist
        var model: Model = [:]
        var index = AttributeIndex()
        var history: [(AttributeIndex, Model)] = []
        for round in 0..<60 {
            // Mostly small batches, now and then one as large as the index.
            let size = round % 7 == 0 ? Int.random(in: 50...400, using: &random) : Int.random(in: 1...12, using: &random)
            history.append((index, model))
            var batch: [AttributeIndex.Change] = []
            var touched: Set<Int64> = []
            for _ in 0..<size {
                let reference = Int64.random(in: 1...300, using: &random)
                guard touched.insert(reference).inserted else { continue }  // one change per object per commit
                let old: AttributeValue?? = current[reference]
                let new: AttributeValue?? = Int.random(in: 0..<5, using: &random) == 0 ? .none : .some(values.randomElement(using: &random)!)
                batch.append(AttributeIndex.Change(reference: reference, old: old, new: new))
                if let old { model[old]?.remove(reference); if model[old]?.isEmpty == true { model[old] = nil } }
                if let new { model[new, default: []].insert(reference) }
                current[reference] = new
            }
            index.apply(batch)
            Self.expectSame(index, model, values: values, "round \(round), seed \(seed)")
        }
        for (round, (old, oldModel)) in history.enumerated() {
            Self.expectSame(old, oldModel, values: values, "copy from round \(round), seed \(seed)")
        }
    }

    @Test func anIndexBuiltFromATableAgreesWithOneBuiltByCommits() throws {
        let layout = try #require(try libraryModel().layout(for: "Tag"))
        var table = Generation.Table()
        var batch: [AttributeIndex.Change] = []
        for reference in Int64(1)...500 {
            var row = Row(emptyFor: layout)
            row.attributes[0] = .string("label \(reference % 37)")
            table.apply([(reference, row)])
            batch.append(AttributeIndex.Change(reference: reference, old: nil, new: .some(row.attributes[0])))
        }
        var committed = AttributeIndex()
        committed.apply(batch)
        let loaded = AttributeIndex(table: table, slot: 0)
        #expect(loaded.sortedEntries().map { "\($0.0) \($0.1)" } == committed.sortedEntries().map { "\($0.0) \($0.1)" })
        #expect(Set(loaded.references(equalTo: .string("label 3"))) == Set((Int64(1)...500).filter { $0 % 37 == 3 }))
    }
}
