/// A set of reference numbers of one entity, for answering "is this object there?" many
/// times over: when a store file loads (are the relationship targets in the file?) and when a
/// save commits (is the target one of the objects this save creates?).
///
/// Stores hand reference numbers out in order, so they are nearly always dense: a bitmap over
/// 1…highest answers with one memory read, where a lookup in the entity's table walks a hash
/// tree (a quarter of the time of opening a store went there). Sparse numbers (a file written
/// by hand, or by another tool) fall back to a hash set, so a huge number costs no huge bitmap.
struct ReferenceMembership {
    private enum Storage {
        case bitmap([UInt64])
        case set(Set<Int64>)
    }

    private let storage: Storage

    init(_ references: [Int64]) {
        let highest = references.max() ?? 0
        let smallest = references.min() ?? 1
        // At most four words of bitmap per reference, and a floor so small tables use one too.
        if smallest > 0, highest / 64 < Int64(references.count) * 4 + 1024 {
            var words = [UInt64](repeating: 0, count: Int(highest / 64) + 1)
            for reference in references {
                words[Int(reference / 64)] |= 1 << UInt64(reference % 64)
            }
            storage = .bitmap(words)
        } else {
            storage = .set(Set(references))
        }
    }

    func contains(_ reference: Int64) -> Bool {
        switch storage {
        case .bitmap(let words):
            guard reference > 0, reference / 64 < Int64(words.count) else { return false }
            return words[Int(reference / 64)] & (1 << UInt64(reference % 64)) != 0
        case .set(let references):
            return references.contains(reference)
        }
    }
}
