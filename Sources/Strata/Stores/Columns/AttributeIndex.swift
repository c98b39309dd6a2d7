import Foundation
import HashTreeCollections

/// An index of one attribute of one entity in one store: for each value, the reference numbers
/// of the objects that have it.
///
/// It is part of a generation and persistent like one: a commit makes a new index that shares
/// the old one's entries. They live in two layers. The base is a flat hash table, built in one
/// go when a store loads or a commit changes a large share of the index, and never changed
/// after, so every generation since shares it. Smaller commits record what they change in a
/// persistent hash tree on top, which costs O(log n) per change. (A hash tree alone made
/// building the index of a million objects, one node allocation after another, two fifths of
/// the time of opening a store.) Equality and `IN` lookups read the two layers; ranges,
/// prefixes and sorting use a sorted list of the entries, built on first use and kept for the
/// generation.
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

        func inserting(_ reference: Int64) -> Postings {
            switch self {
            case .one(let existing):
                return .many([existing, reference])
            case .many(var references):
                references.insert(reference)
                return .many(references)
            }
        }

        /// The postings without `reference`; `nil` when none are left.
        func removing(_ reference: Int64) -> Postings? {
            switch self {
            case .one(let existing): return existing == reference ? nil : self
            case .many(var references):
                references.remove(reference)
                if references.count == 1, let last = references.first { return .one(last) }
                return references.isEmpty ? nil : .many(references)
            }
        }
    }

    /// One object's move in the index: from its old value (when it had one) to its new one
    /// (when it still exists).
    struct Change {
        let reference: Int64
        let old: AttributeValue??
        let new: AttributeValue??
    }

    /// The entries as built in one go; shared by every later generation, never changed.
    private var base: [AttributeValue?: Postings] = [:]
    /// The values changed since `base` was built, with their postings now (`nil`: none left).
    private var changes: TreeDictionary<AttributeValue?, Postings?> = [:]
    private var sorted = SortedEntries()

    init() {}

    /// An index of the rows of a table, on one attribute slot.
    init(table: Generation.Table, slot: Int) {
        var entries: [AttributeValue?: Postings] = [:]
        entries.reserveCapacity(table.count)
        for (reference, row) in table.stored {
            Self.insert(row.attribute(slot), reference, into: &entries)
        }
        base = entries
    }

    /// Applies one commit's changes. A batch that is large next to the index rebuilds the
    /// base, flat, with the changes in it; a smaller one goes on top, until what is on top
    /// outgrows the base (so that rebuilding costs O(1) per change, amortised).
    mutating func apply(_ batch: [Change]) {
        guard !batch.isEmpty else { return }
        invalidateSortedEntries()
        if batch.count * 4 >= base.count + changes.count || changes.count >= base.count {
            var entries = resolvedEntries()
            entries.reserveCapacity(entries.count + batch.count)
            for change in batch {
                if let old = change.old { Self.remove(old, change.reference, from: &entries) }
                if let new = change.new { Self.insert(new, change.reference, into: &entries) }
            }
            base = entries
            changes = [:]
        } else {
            for change in batch {
                if let old = change.old { record(old, postings(for: old)?.removing(change.reference)) }
                if let new = change.new { record(new, postings(for: new)?.inserting(change.reference) ?? .one(change.reference)) }
            }
        }
    }

    func references(equalTo value: AttributeValue?) -> [Int64] {
        postings(for: value)?.references ?? []
    }

    /// The references of objects without a value.
    var referencesWithoutValue: [Int64] { references(equalTo: nil) }

    /// Every (value, reference) pair with a value, in the values' order.
    func sortedEntries() -> [(AttributeValue, Int64)] {
        sorted.get {
            var pairs: [(AttributeValue, Int64)] = []
            pairs.reserveCapacity(base.count + changes.count)
            forEachEntry { value, postings in
                guard let value else { return }
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

    private func postings(for value: AttributeValue?) -> Postings? {
        if let changed = changes[value] { return changed }
        return base[value]
    }

    /// Sets a value's postings on top of the base; a value the base does not hold leaves no
    /// trace once it has none.
    private mutating func record(_ value: AttributeValue?, _ postings: Postings?) {
        if postings == nil, base[value] == nil {
            changes.removeValue(forKey: value)
        } else {
            changes.updateValue(postings, forKey: value)
        }
    }

    private func forEachEntry(_ body: (AttributeValue?, Postings) -> Void) {
        for (value, postings) in base where changes[value] == nil { body(value, postings) }
        for (value, postings) in changes {
            if let postings { body(value, postings) }
        }
    }

    private func resolvedEntries() -> [AttributeValue?: Postings] {
        guard !changes.isEmpty else { return base }
        var entries = base
        for (value, postings) in changes { entries[value] = postings }
        return entries
    }

    private static func insert(_ value: AttributeValue?, _ reference: Int64, into entries: inout [AttributeValue?: Postings]) {
        // One hash of the value when it is new (most are), a second only when it was there.
        if let existing = entries.updateValue(.one(reference), forKey: value) {
            entries[value] = existing.inserting(reference)
        }
    }

    private static func remove(_ value: AttributeValue?, _ reference: Int64, from entries: inout [AttributeValue?: Postings]) {
        entries[value] = entries[value]?.removing(reference)
    }

    /// Forgets the sorted list. The cache object is replaced only when it holds a list or is
    /// shared with a copy of the index (another generation's, which may still build its own):
    /// replacing it on every change cost an allocation per indexed row of a save.
    private mutating func invalidateSortedEntries() {
        if !isKnownUniquelyReferenced(&sorted) || sorted.isBuilt { sorted = SortedEntries() }
    }
}

/// The sorted list of an index's entries, built once per generation, whichever thread asks first.
private final class SortedEntries: Sendable {
    private let cache = ThreadLocked<[(AttributeValue, Int64)]?>(nil)

    var isBuilt: Bool { cache.withLock { $0 != nil } }

    func get(_ build: () -> [(AttributeValue, Int64)]) -> [(AttributeValue, Int64)] {
        if let built = cache.withLock({ $0 }) { return built }
        let built = build()
        cache.withLock { $0 = built }
        return built
    }
}
