/// Counts with their running totals kept current: a Fenwick tree. Changing one count and
/// asking a running total, or which count a total falls in, each cost O(log n); what the
/// chunked lists under a fetched result use to find a position without walking their chunks.
struct PrefixSums {
    /// 1-based: `tree[i]` sums the counts `i - lowbit(i) ..< i` (0-based).
    private var tree: [Int]

    /// Sums of `counts`, built in O(n).
    init(_ counts: [Int] = []) {
        tree = [0] + counts
        for index in tree.indices.dropFirst() {
            let parent = index + (index & -index)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }

    /// How many counts there are.
    var count: Int { tree.count - 1 }

    /// Adds `delta` to the count at `index`.
    mutating func add(_ delta: Int, at index: Int) {
        var node = index + 1
        while node < tree.count {
            tree[node] += delta
            node += node & -node
        }
    }

    /// The sum of the counts before `index`.
    func sum(before index: Int) -> Int {
        var total = 0
        var node = index
        while node > 0 {
            total += tree[node]
            node -= node & -node
        }
        return total
    }

    /// The index whose count holds the `offset`-th unit (counting from 0), and where in that
    /// count it falls: the first index whose running total passes `offset`, so counts of zero
    /// are passed over. `count` when `offset` is at or past the total.
    func locate(_ offset: Int) -> (index: Int, within: Int) {
        var node = 0
        var remaining = offset
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        while step > 0 {
            let next = node + step
            if next < tree.count, tree[next] <= remaining {
                node = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return (node, remaining)
    }
}
