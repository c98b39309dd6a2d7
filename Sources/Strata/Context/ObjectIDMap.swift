/// The IDs a save replaces, each with its replacement: new objects' temporary IDs (and the
/// permanent IDs an earlier, failed save gave some of them) → their new permanent IDs.
///
/// Temporary IDs number from one process-wide counter, so the new objects of a save have
/// numbers close together; those are kept in an array indexed by number, and a lookup is an
/// index rather than a hash probe. (Replacing 1,000,000 new objects' IDs, and the IDs in their
/// relationships, was a fifth of saving them, most of it probing a dictionary of a million
/// entries: a cache miss each; issue 15.) Other IDs, or numbers too spread out for an array,
/// go in a dictionary.
struct ObjectIDMap {
    /// Temporary numbers from `lowest` on; `nil` where a number is not replaced.
    private var byNumber: [ManagedObjectID?] = []
    private var lowest: UInt64 = 0
    private var others: [ManagedObjectID: ManagedObjectID] = [:]

    /// - Parameters: `old` and `new` are aligned: `new[i]` replaces `old[i]`.
    init(replacing old: [ManagedObjectID], with new: [ManagedObjectID]) {
        precondition(old.count == new.count, "one replacement per ID")
        var numbers: [UInt64] = []
        numbers.reserveCapacity(old.count)
        for id in old {
            if let number = id.temporaryNumber { numbers.append(number) }
        }
        if let low = numbers.min(), let high = numbers.max(), high - low < UInt64(max(64, numbers.count * 4)) {
            lowest = low
            byNumber = Array(repeating: nil, count: Int(high - low) + 1)
        }
        for (id, replacement) in zip(old, new) where id != replacement {
            if !byNumber.isEmpty, let number = id.temporaryNumber {
                byNumber[Int(number - lowest)] = replacement
            } else {
                others[id] = replacement
            }
        }
    }

    var isEmpty: Bool { others.isEmpty && !byNumber.contains { $0 != nil } }

    /// What replaces `id`; `nil` when nothing does.
    subscript(id: ManagedObjectID) -> ManagedObjectID? {
        // A temporary ID's number is unique in the process: equal numbers are the same ID.
        if !byNumber.isEmpty, let number = id.temporaryNumber {
            guard number >= lowest, number - lowest < UInt64(byNumber.count) else { return nil }
            return byNumber[Int(number - lowest)]
        }
        return others.isEmpty ? nil : others[id]
    }
}
