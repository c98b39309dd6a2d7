/// A fetched result's sections in order, each with how many entries it holds, kept so that
/// finding the section of an entry's position, a section's first position, or changing a
/// section's count costs O(log sections): the sections sit in small chunks, with running
/// totals of each chunk's sections and of its entries. A result sectioned by a key of its own
/// per object (as many sections as objects) costs what an unsectioned one does.
struct SectionCounts {
    struct Section {
        let name: String
        var count: Int
    }

    /// Chunks split when they reach twice this, and are dropped when empty.
    static var chunkSize: Int { 64 }

    private var chunks: [[Section]] = []
    /// How many sections each chunk holds, with running totals.
    private var sectionsPerChunk = PrefixSums()
    /// How many entries each chunk's sections hold, with running totals.
    private var entriesPerChunk = PrefixSums()
    /// How many sections there are.
    private(set) var count = 0

    init(_ sections: [Section] = []) {
        var start = 0
        while start < sections.count {
            let end = min(start + Self.chunkSize, sections.count)
            chunks.append(Array(sections[start..<end]))
            start = end
        }
        count = sections.count
        rebuildTotals()
    }

    /// Every section, in order.
    var all: [Section] { chunks.flatMap { $0 } }

    subscript(index: Int) -> Section {
        let (chunk, offset) = sectionsPerChunk.locate(index)
        return chunks[chunk][offset]
    }

    /// The section holding the entry at `position`, and that section's first position.
    /// `(count, total)` past the last entry.
    func locate(entry position: Int) -> (section: Int, start: Int) {
        let (chunk, within) = entriesPerChunk.locate(position)
        guard chunk < chunks.count else { return (count, entriesPerChunk.sum(before: chunks.count)) }
        var start = position - within
        for (offset, section) in chunks[chunk].enumerated() {
            if position < start + section.count { return (sectionsPerChunk.sum(before: chunk) + offset, start) }
            start += section.count
        }
        preconditionFailure("a chunk's entries total more than its sections count")
    }

    /// The positions of the section at `index`'s entries.
    func range(of index: Int) -> Range<Int> {
        let (chunk, offset) = sectionsPerChunk.locate(index)
        var start = entriesPerChunk.sum(before: chunk)
        for section in chunks[chunk][..<offset] { start += section.count }
        return start..<(start + chunks[chunk][offset].count)
    }

    /// Adds `delta` to the count of the section at `index`; returns its new count.
    @discardableResult
    mutating func add(_ delta: Int, at index: Int) -> Int {
        let (chunk, offset) = sectionsPerChunk.locate(index)
        chunks[chunk][offset].count += delta
        entriesPerChunk.add(delta, at: chunk)
        return chunks[chunk][offset].count
    }

    mutating func insert(_ section: Section, at index: Int) {
        guard !chunks.isEmpty else {
            self = SectionCounts([section])
            return
        }
        let (chunk, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : sectionsPerChunk.locate(index)
        chunks[chunk].insert(section, at: offset)
        count += 1
        sectionsPerChunk.add(1, at: chunk)
        entriesPerChunk.add(section.count, at: chunk)
        if chunks[chunk].count >= 2 * Self.chunkSize {
            let second = Array(chunks[chunk][Self.chunkSize...])
            chunks[chunk].removeLast(chunks[chunk].count - Self.chunkSize)
            chunks.insert(second, at: chunk + 1)
            rebuildTotals()
        }
    }

    @discardableResult
    mutating func remove(at index: Int) -> Section {
        let (chunk, offset) = sectionsPerChunk.locate(index)
        let section = chunks[chunk].remove(at: offset)
        count -= 1
        sectionsPerChunk.add(-1, at: chunk)
        entriesPerChunk.add(-section.count, at: chunk)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            rebuildTotals()
        }
        return section
    }

    private mutating func rebuildTotals() {
        sectionsPerChunk = PrefixSums(chunks.map(\.count))
        entriesPerChunk = PrefixSums(chunks.map { $0.reduce(0) { $0 + $1.count } })
    }
}
