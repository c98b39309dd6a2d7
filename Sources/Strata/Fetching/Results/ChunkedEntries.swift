/// A long ordered list kept in chunks, with the chunks' sizes in running totals: a two-level
/// B-tree of a fetched result's entries. Inserting or removing at a position moves at most one
/// chunk's elements and updates the totals in O(log n), not everything after it, so a change
/// to one object of a million-object result stays in microseconds; finding a position is a
/// descent of the totals. Splitting a full chunk or dropping an empty one rebuilds the totals
/// (O(chunks)), at most once per ``chunkSize`` changes to that chunk.
struct ChunkedEntries<Element> {
    /// Chunks split when they reach twice this, and are dropped when empty.
    static var chunkSize: Int { 512 }

    private var chunks: [[Element]] = []
    /// Each chunk's size, with running totals.
    private var sizes = PrefixSums()
    private(set) var count = 0

    init(_ elements: [Element] = []) {
        var start = 0
        while start < elements.count {
            let end = min(start + Self.chunkSize, elements.count)
            chunks.append(Array(elements[start..<end]))
            start = end
        }
        count = elements.count
        sizes = PrefixSums(chunks.map(\.count))
    }

    /// Every element, in order.
    var all: [Element] { chunks.flatMap { $0 } }

    subscript(position: Int) -> Element {
        let (chunk, offset) = sizes.locate(position)
        return chunks[chunk][offset]
    }

    /// The elements at `positions`, in order, copied chunk by chunk.
    subscript(positions: Range<Int>) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(positions.count)
        guard !positions.isEmpty else { return result }
        var (chunk, offset) = sizes.locate(positions.lowerBound)
        while result.count < positions.count {
            let take = min(chunks[chunk].count - offset, positions.count - result.count)
            result.append(contentsOf: chunks[chunk][offset..<(offset + take)])
            chunk += 1
            offset = 0
        }
        return result
    }

    mutating func insert(_ element: Element, at position: Int) {
        guard !chunks.isEmpty else {
            chunks = [[element]]
            sizes = PrefixSums([1])
            count = 1
            return
        }
        // At the end of the list, the last chunk takes it; elsewhere, the chunk holding the position.
        let (chunk, offset) = position == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : sizes.locate(position)
        chunks[chunk].insert(element, at: offset)
        count += 1
        sizes.add(1, at: chunk)
        if chunks[chunk].count >= 2 * Self.chunkSize {
            let second = Array(chunks[chunk][Self.chunkSize...])
            chunks[chunk].removeLast(chunks[chunk].count - Self.chunkSize)
            chunks.insert(second, at: chunk + 1)
            sizes = PrefixSums(chunks.map(\.count))
        }
    }

    @discardableResult
    mutating func remove(at position: Int) -> Element {
        let (chunk, offset) = sizes.locate(position)
        let element = chunks[chunk].remove(at: offset)
        count -= 1
        sizes.add(-1, at: chunk)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            sizes = PrefixSums(chunks.map(\.count))
        }
        return element
    }
}
