import Foundation
@testable import Strata
import Testing

/// The map a save replaces new objects' IDs through: by number for temporary IDs close
/// together, by hash for the rest, the same answers either way.
@Suite struct ObjectIDMapTests {
    static let temporary = ObjectIDSpace.make(store: nil, entityName: "Book")
    static let store = ObjectIDSpace.make(store: "STORE-A", entityName: "Book")

    @Test(arguments: [2, 1_000])  // close enough for an array, and too spread out for one
    func replacesWhatItWasGivenAndNothingElse(spacing: UInt64) {
        let old = (0..<200).map { ManagedObjectID(space: Self.temporary, number: Int64(bitPattern: 5_000 + UInt64($0) * spacing)) }
            + [ManagedObjectID(space: Self.store, number: 7)]  // a permanent ID from a failed save
        let new = (0..<201).map { ManagedObjectID(space: Self.store, number: Int64(100 + $0)) }
        let map = ObjectIDMap(replacing: old, with: new)
        #expect(!map.isEmpty)
        for (id, replacement) in zip(old, new) { #expect(map[id] == replacement) }
        // Numbers below, between and above the ones given, and other permanent IDs, are not replaced.
        for number in [UInt64(1), 4_999, 5_000 + 200 * spacing, 5_001 + spacing * 3] {
            #expect(map[ManagedObjectID(space: Self.temporary, number: Int64(bitPattern: number))] == nil, "t\(number)")
        }
        #expect(map[ManagedObjectID(space: Self.store, number: 8)] == nil)
        #expect(map[new[0]] == nil, "a replacement is not itself replaced")
    }

    @Test func anIDGivenBackUnchangedIsNoReplacement() {
        let id = ManagedObjectID(space: Self.store, number: 3)
        let map = ObjectIDMap(replacing: [id], with: [id])
        #expect(map.isEmpty)
        #expect(map[id] == nil)
    }
}
