/// A long ordered list kept in chunks, with where each chunk starts: a two-level B-tree of a
/// fetched result's entries. Inserting or removing at a position moves at most one chunk's
/// elements (and adjusts the chunks' starts), not everything after it, so a change to one
/// object of a million-object result stays in microseconds; finding a position is two binary
/// searches.
struct ChunkedEntries<Element> {
    /// Chunks split when they reach twice this, and are dropped when empty.
    static var chunkSize: Int { 512 }

    private var chunks: [[Element]] = []
    /// The position of each chunk's first element.
    private var starts: [Int] = []
    private(set) var count = 0

    init(_ elements: [Element] = []) {
        var start = 0
        while start < elements.count {
            let end = min(start + Self.chunkSize, elements.count)
            chunks.append(Array(elements[start..<end]))
            starts.append(start)
            start = end
        }
        count = elements.count
    }

    /// Every element, in order.
    var all: [Element] { chunks.flatMap { $0 } }

    subscript(position: Int) -> Element {
        let chunk = chunk(containing: position)
        return chunks[chunk][position - starts[chunk]]
    }

    mutating func insert(_ element: Element, at position: Int) {
        guard !chunks.isEmpty else {
            chunks = [[element]]
            starts = [0]
            count = 1
            return
        }
        // At the end of the list, the last chunk takes it; elsewhere, the chunk holding the position.
        let chunk = position == count ? chunks.count - 1 : chunk(containing: position)
        chunks[chunk].insert(element, at: position - starts[chunk])
        count += 1
        for index in (chunk + 1)..<starts.count { starts[index] += 1 }
        if chunks[chunk].count >= 2 * Self.chunkSize {
            let second = Array(chunks[chunk][Self.chunkSize...])
            chunks[chunk].removeLast(chunks[chunk].count - Self.chunkSize)
            chunks.insert(second, at: chunk + 1)
            starts.insert(starts[chunk] + Self.chunkSize, at: chunk + 1)
        }
    }

    @discardableResult
    mutating func remove(at position: Int) -> Element {
        let chunk = chunk(containing: position)
        let element = chunks[chunk].remove(at: position - starts[chunk])
        count -= 1
        for index in (chunk + 1)..<starts.count { starts[index] -= 1 }
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            starts.remove(at: chunk)
        }
        return element
    }

    /// The index of the chunk holding `position`: the last whose start is at or before it.
    private func chunk(containing position: Int) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }
}
