import Foundation

/// A fetch's result kept in order as objects change, in sections: the engine of a
/// ``FetchedResultsController``. It knows nothing of contexts: it is given each changed
/// object's new place (its sort keys and section, or none when it left the result) and says
/// where objects and sections went.
///
/// Entries are ordered by the first sort key, then the section name (so that a section is
/// contiguous even when the first key's options make different names equal), then the other
/// sort keys, then the object's ID (saved objects by reference number, as a fetch returns ties,
/// then new ones), which makes every entry's place unique and found by binary search.
struct OrderedResults {
    /// One object's place in the result.
    struct Entry {
        let object: ManagedObject
        let keys: [EvaluationValue]
        let section: String
        let tie: Tie
    }

    /// What orders objects whose sort keys are equal: saved before new, then by number.
    struct Tie: Comparable {
        let isTemporary: Bool
        let number: Int64
        let entity: String

        init(_ id: ManagedObjectID) {
            isTemporary = id.isTemporaryID
            number = id.number64
            entity = id.entityName
        }

        static func < (a: Tie, b: Tie) -> Bool {
            (a.isTemporary ? 1 : 0, a.number, a.entity) < (b.isTemporary ? 1 : 0, b.number, b.entity)
        }
    }

    /// One object that changed: its entry in the new result (`nil`: it is not in it), and
    /// whether a change of its own is to be told as an update when it stays where it was.
    struct Change {
        let object: ManagedObject
        let entry: Entry?
        let isUpdate: Bool
    }

    /// What a set of changes did, with index paths as Core Data gives them: deletions in the
    /// result before, insertions and moves' destinations in the result after.
    struct Outcome {
        /// Sections that went, with the objects they held (in order).
        var deletedSections: [(index: Int, name: String, objects: [ManagedObject])] = []
        var insertedSections: [(index: Int, name: String)] = []
        var objects: [(object: ManagedObject, type: FetchedResultsChangeType, old: IndexPath?, new: IndexPath?)] = []

        var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objects.isEmpty }
    }

    let descriptors: [FetchSortDescriptor]
    private(set) var entries = ChunkedEntries<Entry>()
    /// The sections in order, with how many entries each holds.
    private(set) var sections = SectionCounts()
    private var entryOfObject: [ObjectIdentifier: Entry] = [:]

    init(sortDescriptors: [FetchSortDescriptor]) {
        descriptors = sortDescriptors
    }

    /// Replaces the whole result (a fetch), in the order the entries give.
    mutating func load(_ loaded: [Entry]) {
        let sorted = loaded.sorted { compare($0, $1) == .orderedAscending }
        entries = ChunkedEntries(sorted)
        entryOfObject = Dictionary(sorted.map { (ObjectIdentifier($0.object), $0) }, uniquingKeysWith: { first, _ in first })
        var list: [SectionCounts.Section] = []
        for entry in sorted {
            if list.last?.name == entry.section { list[list.count - 1].count += 1 } else { list.append(.init(name: entry.section, count: 1)) }
        }
        sections = SectionCounts(list)
    }

    func contains(_ object: ManagedObject) -> Bool {
        entryOfObject[ObjectIdentifier(object)] != nil
    }

    /// The object's index path, if it is in the result.
    func indexPath(of object: ManagedObject) -> IndexPath? {
        guard let entry = entryOfObject[ObjectIdentifier(object)], let flat = position(of: entry) else { return nil }
        return indexPath(ofFlat: flat)
    }

    /// The section and item of the `flat`-th entry.
    func indexPath(ofFlat flat: Int) -> IndexPath {
        let (section, start) = sections.locate(entry: flat)
        return IndexPath(indexes: [section, flat - start])
    }

    /// The entries of each section, as ranges of ``entries``.
    var sectionRanges: [Range<Int>] {
        var start = 0
        return sections.all.map { section in
            defer { start += section.count }
            return start..<(start + section.count)
        }
    }

    /// The objects of the section at `index`, in order.
    func objects(inSection index: Int) -> [ManagedObject] {
        entries[sections.range(of: index)].map(\.object)
    }

    /// Applies changes at once: takes each changed object out of its old place, puts those
    /// still in the result at their new ones, and says what moved. Costs O(k log n) for k
    /// changes to a result of n entries, whatever the number of sections.
    mutating func apply(_ changes: [Change]) -> Outcome {
        var seen: Set<ObjectIdentifier> = []
        let changes = changes.filter { seen.insert(ObjectIdentifier($0.object)).inserted }
        var old: [ObjectIdentifier: (entry: Entry, path: IndexPath)] = [:]
        var flats: [Int] = []
        for change in changes {
            let key = ObjectIdentifier(change.object)
            guard let entry = entryOfObject[key], let flat = position(of: entry) else { continue }
            old[key] = (entry, indexPath(ofFlat: flat))
            flats.append(flat)
        }
        // From the last position back, so that a section emptied here keeps its old index:
        // only sections after it went before it.
        var emptied: [(index: Int, name: String)] = []
        for flat in flats.sorted(by: >) {
            let entry = entries.remove(at: flat)
            entryOfObject[ObjectIdentifier(entry.object)] = nil
            let section = sections.locate(entry: flat).section
            if sections.add(-1, at: section) == 0 { emptied.append((section, sections.remove(at: section).name)) }
        }
        var founded: [Entry] = []
        for change in changes {
            guard let entry = change.entry else { continue }
            if insert(entry) { founded.append(entry) }
        }
        // A section emptied and founded again under its name stayed, as far as sections go.
        let emptiedNames = Set(emptied.map(\.name))
        let foundedNames = Set(founded.map(\.section))
        var outcome = Outcome()
        let deleted = emptied.filter { !foundedNames.contains($0.name) }
        if !deleted.isEmpty {
            let deletedIndices = Set(deleted.map(\.index))
            var held: [Int: [(item: Int, object: ManagedObject)]] = [:]
            for (entry, path) in old.values where deletedIndices.contains(path[0]) { held[path[0], default: []].append((path[1], entry.object)) }
            outcome.deletedSections = deleted.sorted { $0.index < $1.index }.map { section in
                (section.index, section.name, (held[section.index] ?? []).sorted { $0.item < $1.item }.map(\.object))
            }
        }
        outcome.insertedSections = founded.filter { !emptiedNames.contains($0.section) }.compactMap { entry -> (index: Int, name: String)? in
            position(of: entry).map { (sections.locate(entry: $0).section, entry.section) }
        }.sorted { $0.index < $1.index }
        for change in changes {
            let before = old[ObjectIdentifier(change.object)]
            let after = change.entry.flatMap { position(of: $0) }.map { indexPath(ofFlat: $0) }
            switch (before, after) {
            case (nil, nil):
                continue
            case (let before?, nil):
                outcome.objects.append((change.object, .delete, before.path, nil))
            case (nil, let after?):
                outcome.objects.append((change.object, .insert, nil, after))
            case (let before?, let after?):
                if before.path != after {
                    outcome.objects.append((change.object, .move, before.path, after))
                } else if change.isUpdate {
                    outcome.objects.append((change.object, .update, before.path, after))
                }
            }
        }
        return outcome
    }

    /// Puts `entry` at its place, in its neighbours' section or a new one; `true` when it
    /// founded a section.
    private mutating func insert(_ entry: Entry) -> Bool {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if compare(entries[middle], entry) == .orderedDescending { high = middle } else { low = middle + 1 }
        }
        entries.insert(entry, at: low)
        entryOfObject[ObjectIdentifier(entry.object)] = entry
        // The sections do not count the new entry yet: its next neighbour is at `low` for them.
        if low > 0, entries[low - 1].section == entry.section {
            sections.add(1, at: sections.locate(entry: low - 1).section)
            return false
        }
        if low + 1 < entries.count, entries[low + 1].section == entry.section {
            sections.add(1, at: sections.locate(entry: low).section)
            return false
        }
        let index = low == 0 ? 0 : sections.locate(entry: low - 1).section + 1
        sections.insert(.init(name: entry.section, count: 1), at: index)
        return true
    }

    /// Where `entry` is in ``entries``, by binary search (every entry's place is unique).
    private func position(of entry: Entry) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if compare(entries[middle], entry) == .orderedAscending { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count, entries[low].object === entry.object else { return nil }
        return low
    }

    private func compare(_ a: Entry, _ b: Entry) -> ComparisonResult {
        for (index, descriptor) in descriptors.enumerated() {
            let order = descriptor.order(a.keys[index], b.keys[index])
            if order != .orderedSame { return descriptor.ascending == (order == .orderedAscending) ? .orderedAscending : .orderedDescending }
            if index == 0, a.section != b.section { return a.section < b.section ? .orderedAscending : .orderedDescending }
        }
        if a.tie != b.tie { return a.tie < b.tie ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }
}
