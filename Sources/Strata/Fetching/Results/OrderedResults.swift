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

    let ascending: [Bool]
    let options: [FetchPredicate.Options]
    private(set) var entries = ChunkedEntries<Entry>()
    /// The sections in order, with how many entries each holds.
    private(set) var sections: [(name: String, count: Int)] = []
    private var entryOfObject: [ObjectIdentifier: Entry] = [:]

    init(sortDescriptors: [FetchSortDescriptor]) {
        ascending = sortDescriptors.map(\.ascending)
        options = sortDescriptors.map(\.options)
    }

    /// Replaces the whole result (a fetch), in the order the entries give.
    mutating func load(_ loaded: [Entry]) {
        let sorted = loaded.sorted { compare($0, $1) == .orderedAscending }
        entries = ChunkedEntries(sorted)
        entryOfObject = Dictionary(sorted.map { (ObjectIdentifier($0.object), $0) }, uniquingKeysWith: { first, _ in first })
        sections = []
        for entry in sorted {
            if sections.last?.name == entry.section { sections[sections.count - 1].count += 1 } else { sections.append((entry.section, 1)) }
        }
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
        var start = 0
        for (index, section) in sections.enumerated() {
            if flat < start + section.count { return IndexPath(indexes: [index, flat - start]) }
            start += section.count
        }
        return IndexPath(indexes: [sections.count, 0])
    }

    /// The entries of each section, as ranges of ``entries``.
    var sectionRanges: [Range<Int>] {
        var start = 0
        return sections.map { section in
            defer { start += section.count }
            return start..<(start + section.count)
        }
    }

    /// Applies changes at once: takes each changed object out of its old place, puts those
    /// still in the result at their new ones, and says what moved.
    mutating func apply(_ changes: [Change]) -> Outcome {
        var seen: Set<ObjectIdentifier> = []
        let changes = changes.filter { seen.insert(ObjectIdentifier($0.object)).inserted }
        let oldNames = sections.map(\.name)
        var old: [ObjectIdentifier: (entry: Entry, path: IndexPath)] = [:]
        var flats: [Int] = []
        for change in changes {
            let key = ObjectIdentifier(change.object)
            guard let entry = entryOfObject[key], let flat = position(of: entry) else { continue }
            old[key] = (entry, indexPath(ofFlat: flat))
            flats.append(flat)
        }
        for flat in flats.sorted(by: >) {
            let entry = entries.remove(at: flat)
            entryOfObject[ObjectIdentifier(entry.object)] = nil
            let section = sectionIndex(ofFlat: flat)
            sections[section].count -= 1
            if sections[section].count == 0 { sections.remove(at: section) }
        }
        for change in changes {
            guard let entry = change.entry else { continue }
            insert(entry)
        }
        var outcome = Outcome()
        let newNames = sections.map(\.name)
        let oldSet = Set(oldNames)
        let newSet = Set(newNames)
        for (index, name) in oldNames.enumerated() where !newSet.contains(name) {
            let held = old.values.filter { $0.path[0] == index }.sorted { $0.path[1] < $1.path[1] }.map(\.entry.object)
            outcome.deletedSections.append((index, name, held))
        }
        outcome.insertedSections = newNames.enumerated().filter { !oldSet.contains($0.element) }.map { ($0.offset, $0.element) }
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

    private mutating func insert(_ entry: Entry) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if compare(entries[middle], entry) == .orderedDescending { high = middle } else { low = middle + 1 }
        }
        entries.insert(entry, at: low)
        entryOfObject[ObjectIdentifier(entry.object)] = entry
        // The entry's section: the one of a neighbour with its name, or a new one at its place.
        if low > 0, entries[low - 1].section == entry.section {
            sections[sectionIndex(ofFlat: low - 1)].count += 1
        } else if low + 1 < entries.count, entries[low + 1].section == entry.section {
            sections[sectionIndex(ofFlat: low + 1, after: true)].count += 1
        } else {
            let index = low == 0 ? 0 : sectionIndex(ofFlat: low - 1) + 1
            sections.insert((entry.section, 1), at: index)
        }
    }

    /// The index of the section holding the `flat`-th entry; `after`: the flat index counts
    /// the entry just inserted before it, which no section counts yet.
    private func sectionIndex(ofFlat flat: Int, after: Bool = false) -> Int {
        let target = after ? flat - 1 : flat
        var start = 0
        for (index, section) in sections.enumerated() {
            if target < start + section.count { return index }
            start += section.count
        }
        return max(sections.count - 1, 0)
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
        for index in ascending.indices {
            let order = ObjectGraph.sortOrder(a.keys[index], b.keys[index], options[index])
            if order != .orderedSame { return ascending[index] == (order == .orderedAscending) ? .orderedAscending : .orderedDescending }
            if index == 0, a.section != b.section { return a.section < b.section ? .orderedAscending : .orderedDescending }
        }
        if a.tie != b.tie { return a.tie < b.tie ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }
}
