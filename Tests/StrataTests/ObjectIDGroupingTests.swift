import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// IDs grouped by their store before a call per store (announcing registrations, reading a
/// generation's rows): an array of one store's IDs is handed on whole, any other is grouped ID
/// by ID. Both give the same groups, for any mix of stores, entities and temporary IDs.
@Suite struct ObjectIDGroupingTests {
    @Test func anArrayGroupsAsTheSequenceDoes() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let spaces = ["A", "B", "C"].flatMap { store in
            ["Person", "Book"].map { ObjectIDSpace.make(store: "store\(store)", entityName: $0) }
        }
        let temporary = ObjectIDSpace.make(store: nil, entityName: "Person")
        for round in 0..<500 {
            // Most rounds draw from one store (the whole array handed on), some from several.
            let stores = round % 3 == 0 ? spaces : Array(spaces.prefix(2))
            let count = Int.random(in: 0...40, using: &random)
            var ids = (0..<count).map { _ in
                ManagedObjectID(space: stores.randomElement(using: &random)!, number: Int64.random(in: 1...1_000, using: &random))
            }
            if round % 5 == 1 { ids.insert(.temporary(in: temporary), at: Int.random(in: 0...ids.count, using: &random)) }
            let grouped = ids.groupedByStore()
            let expected = ManagedObjectID.grouping(ids)
            #expect(grouped.map(\.store) == expected.map(\.store), "seed \(seed), round \(round)")
            #expect(grouped.map(\.ids) == expected.map(\.ids), "seed \(seed), round \(round)")
            // The groups hold every permanent ID once, in order, and nothing else.
            #expect(grouped.flatMap(\.ids).count == ids.filter { !$0.isTemporaryID }.count, "seed \(seed), round \(round)")
        }
    }

    @Test func oneStoresIDsAreOneGroupAndTemporaryOnesNone() {
        let person = ObjectIDSpace.make(store: "storeA", entityName: "Person")
        let book = ObjectIDSpace.make(store: "storeA", entityName: "Book")
        let ids = [ManagedObjectID(space: person, number: 1), ManagedObjectID(space: book, number: 2), ManagedObjectID(space: person, number: 3)]
        let grouped = ids.groupedByStore()
        #expect(grouped.count == 1 && grouped.first?.store == "storeA" && grouped.first?.ids == ids)
        let temporary = [ManagedObjectID.temporary(in: .make(store: nil, entityName: "Person"))]
        #expect(temporary.groupedByStore().isEmpty)
        #expect(([] as [ManagedObjectID]).groupedByStore().isEmpty)
    }
}
