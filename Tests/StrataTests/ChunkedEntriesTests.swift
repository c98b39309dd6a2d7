@testable import Strata
import StrataTestSupport
import Testing

/// The chunked list under a fetched result: seeded random inserts and removals, across chunk
/// splits and emptied chunks, against an array doing the same.
@Suite struct ChunkedEntriesTests {
    @Test(arguments: [1 as UInt64, 2, 3])
    func itAgreesWithAnArray(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var model = Array(0..<700)
        var chunked = ChunkedEntries(model)
        var next = 700
        for step in 0..<6_000 {
            // Grow for a while (chunks split), then shrink (chunks empty), then both.
            let grows = step < 2_500 ? Int.random(in: 0..<10, using: &random) < 8 : step < 4_500 ? Int.random(in: 0..<10, using: &random) < 2 : Bool.random(using: &random)
            if grows || model.isEmpty {
                let position = Int.random(in: 0...model.count, using: &random)
                model.insert(next, at: position)
                chunked.insert(next, at: position)
                next += 1
            } else {
                let position = Int.random(in: 0..<model.count, using: &random)
                #expect(chunked.remove(at: position) == model.remove(at: position))
            }
            if step % 500 == 0 {
                #expect(chunked.all == model, "step \(step)")
                #expect(chunked.count == model.count)
                if !model.isEmpty {
                    let probe = Int.random(in: 0..<model.count, using: &random)
                    #expect(chunked[probe] == model[probe])
                    let end = Int.random(in: probe...model.count, using: &random)
                    #expect(chunked[probe..<end] == Array(model[probe..<end]), "step \(step)")
                }
            }
        }
        #expect(chunked.all == model)
        #expect((0..<model.count).allSatisfy { chunked[$0] == model[$0] })
    }
}
