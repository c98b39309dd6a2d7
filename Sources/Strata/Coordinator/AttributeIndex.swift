import Foundation
import HashTreeCollections
import Synchronization

/// An index of one attribute of one entity in one store: for each value, the reference numbers
/// of the objects that have it.
///
/// It is part of a generation and persistent like one: a commit changes the entries of the
/// rows it touches, sharing the rest. Equality and `IN` lookups use the hash map directly;
/// ranges, prefixes and sorting use a sorted list of the entries, built on first use and kept
/// for the generation.
struct AttributeIndex: Sendable {
    /// The references of the objects with one value: most values have one.
    enum Postings: Sendable, Hashable {
        case one(Int64)
        case many(TreeSet<Int64>)

        var references: [Int64] {
            switch self {
            case .one(let reference): [reference]
            case .many(let references): Array(references)
            }
        }
    }

    private(set) var entries: TreeDictionary<AttributeValue?, Postings> = [:]
    private var sorted = SortedEntries()

    init() {}

    /// An index of the rows of a table, on one attribute slot.
    init(table: Generation.Table, slot: Int) {
        for (reference, row) in table { insert(row.attributes[slot], reference) }
    }

    mutating func insert(_ value: AttributeValue?, _ reference: Int64) {
        invalidateSortedEntries()
        switch entries[value] {
        case nil: entries[value] = .one(reference)
        case .one(let existing)?: entries[value] = .many([existing, reference])
        case .many(var references)?:
            entries[value] = nil
            references.insert(reference)
            entries[value] = .many(references)
        }
    }

    mutating func remove(_ value: AttributeValue?, _ reference: Int64) {
        invalidateSortedEntries()
        switch entries[value] {
        case .one(reference)?: entries[value] = nil
        case .many(var references)?:
            entries[value] = nil
            references.remove(reference)
            if references.count == 1, let last = references.first {
                entries[value] = .one(last)
            } else if !references.isEmpty {
                entries[value] = .many(references)
            }
        default: break
        }
    }

    /// Forgets the sorted list. The cache object is replaced only when it holds a list or is
    /// shared with a copy of the index (another generation's, which may still build its own):
    /// replacing it on every change cost an allocation per indexed row of a save.
    private mutating func invalidateSortedEntries() {
        if !isKnownUniquelyReferenced(&sorted) || sorted.isBuilt { sorted = SortedEntries() }
    }

    func references(equalTo value: AttributeValue?) -> [Int64] {
        entries[value]?.references ?? []
    }

    /// Every (value, reference) pair with a value, in the values' order.
    func sortedEntries() -> [(AttributeValue, Int64)] {
        sorted.get {
            var pairs: [(AttributeValue, Int64)] = []
            pairs.reserveCapacity(entries.count)
            for (value, postings) in entries {
                guard let value else { continue }
                for reference in postings.references { pairs.append((value, reference)) }
            }
            pairs.sort { a, b in
                switch a.0.compare(to: b.0) {
                case .orderedAscending?: true
                case .orderedDescending?: false
                default: a.1 < b.1
                }
            }
            return pairs
        }
    }

    /// The references of objects without a value.
    var referencesWithoutValue: [Int64] { references(equalTo: nil) }
}

/// The sorted list of an index's entries, built once per generation, whichever thread asks first.
private final class SortedEntries: Sendable {
    private let cache = Mutex<[(AttributeValue, Int64)]?>(nil)

    var isBuilt: Bool { cache.withLock { $0 != nil } }

    func get(_ build: () -> [(AttributeValue, Int64)]) -> [(AttributeValue, Int64)] {
        if let built = cache.withLock({ $0 }) { return built }
        let built = build()
        cache.withLock { $0 = built }
        return built
    }
}
