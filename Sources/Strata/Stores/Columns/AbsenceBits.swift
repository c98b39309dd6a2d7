/// Which positions of a column hold no value (`nil`): one bit per position, allocated only
/// when the first `nil` arrives, so that a column without one (the common case) pays nothing.
struct AbsenceBits: Sendable, Hashable {
    private var words: [UInt64] = []
    /// Positions recorded so far.
    private(set) var count = 0

    init() {}

    /// Whether the value at `position` is absent.
    @inline(__always)
    subscript(position: Int) -> Bool {
        let word = position >> 6
        return word < words.count && words[word] & (1 << UInt64(position & 63)) != 0
    }

    mutating func append(absent: Bool) {
        if absent {
            let word = count >> 6
            if word >= words.count {
                words.reserveCapacity((count >> 6) + 1)
                words.append(contentsOf: repeatElement(0, count: word + 1 - words.count))
            }
            words[word] |= 1 << UInt64(count & 63)
        }
        count += 1
    }

    /// Positions `range` of `other`, appended.
    mutating func append(contentsOf other: AbsenceBits, _ range: Range<Int>) {
        guard !other.words.isEmpty else {
            count += range.count
            return
        }
        for position in range { append(absent: other[position]) }
    }
}
