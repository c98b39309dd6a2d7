import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// A sorted fetch of an atomic store's tables reads its window from the generation's sorted
/// order (``SortedOrders``) instead of sorting the table — with a predicate, walking the order
/// until the page is full: it must give
/// exactly what sorting gives — the same objects in the same order, ties in the same order,
/// Core Data's `fetchOffset` and `fetchLimit` ("NSFetchRequest": the offset skips that many
/// of the sorted results, the limit caps what is returned) — whatever the sort, after saves,
/// and with the context's unsaved changes (which sort in memory as before).
@Suite struct SortedOrderTests {
    static let codes = ["alpha", "Alpha", "beta", "gamma", "ÅNGSTRÖM", "angstrom", "b10", "b9", "Beta", ""]
    static let comparisons: [SortComparison] = [.compare, .caseInsensitiveCompare, .localizedCompare, .localizedStandardCompare]

    static func fill(_ context: isolated ManagedObjectContext, count: Int, random: inout SplitMix64) throws {
        for index in 0..<count {
            let item = try context.insertNewObject(forEntityName: index % 4 == 0 ? "Special" : "Item")
            try item.setValue(codes.randomElement(using: &random)!, forKey: "code")
            try item.setValue(Int.random(in: 0..<20, using: &random), forKey: "rank")
            if Bool.random(using: &random) { try item.setValue(Double(Int.random(in: 0..<8, using: &random)) / 2, forKey: "score") }
        }
    }

    static func randomRequest(_ random: inout SplitMix64) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: Int.random(in: 0..<4, using: &random) == 0 ? "Special" : "Item")
        let keys = ["code", "rank", "score"].shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random))
        request.sortDescriptors = keys.map { key in
            let ascending = Bool.random(using: &random)
            return key == "code"
                ? FetchSortDescriptor(key: key, ascending: ascending, selector: comparisons.randomElement(using: &random)!)
                : FetchSortDescriptor(key: key, ascending: ascending)
        }
        // Predicates no index narrows (the order is walked), and some one does (the fetch sorts).
        let predicates = [
            nil, nil, "code CONTAINS[c] 'a'", "rank != 3", "score > 1.5 OR rank < 5", "note == nil AND rank > 10",
            "NOT (rank BETWEEN {3, 9})", "code ENDSWITH 'a'", "rank == 7",
        ]
        request.predicate = try predicates.randomElement(using: &random)!.map { try FetchPredicate(format: $0) }
        request.includesSubentities = Int.random(in: 0..<4, using: &random) != 0
        request.fetchOffset = Int.random(in: 0..<3, using: &random) == 0 ? 0 : Int.random(in: 0..<400, using: &random)
        request.fetchLimit = Int.random(in: 0..<3, using: &random) == 0 ? 0 : Int.random(in: 1..<60, using: &random)
        return request
    }

    @Test(arguments: [StoreKind.inMemory, .binary, .xml])
    func theOrderGivesWhatSortingGives(_ kind: StoreKind) async throws {
        // A failure prints its seed; `STRATA_SORTED_ORDER_SEED` replays it.
        let seed = ProcessInfo.processInfo.environment["STRATA_SORTED_ORDER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let coordinator = try await makeCoordinator(IndexTests.model(), kind)
        var random = SplitMix64(seed: seed)
        try await backgroundContext(coordinator).perform { [random] context in
            var random = random
            try Self.fill(context, count: 400, random: &random)
            try context.save()
        }
        for round in 0..<60 {
            let request = try Self.randomRequest(&random)
            let step = round % 6
            let changeSeed = random.next()
            let (fast, sorted, considered) = try await backgroundContext(coordinator).perform { context in
                var random = SplitMix64(seed: changeSeed)
                if step == 4 || step == 5 {
                    // Changes: left unsaved (the fetch sorts them in memory), or saved (a new generation, a new order).
                    let some = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                    for object in some.shuffled(using: &random).prefix(12) {
                        if Bool.random(using: &random) { context.delete(object) } else { try object.setValue(Int.random(in: 0..<20, using: &random), forKey: "rank") }
                    }
                    try Self.fill(context, count: 6, random: &random)
                    if step == 5 { try context.save() }
                }
                var slow = request
                slow.usesFastPaths = false
                let fast = try context.fetchObjectIDs(request)
                let considered = context.graph.rowsConsidered
                return (fast, try context.fetchObjectIDs(slow), considered)
            }
            #expect(fast == sorted, "\(request.sortDescriptors) offset \(request.fetchOffset) limit \(request.fetchLimit) (seed \(seed), round \(round))")
            if step != 4, request.predicate == nil {
                #expect(considered == fast.count, "the window came from the order (seed \(seed), round \(round))")
            }
        }
    }

    /// The order belongs to the generation it was made from: a fetch after a save reads the new
    /// rows, and a context pinned to the old generation still reads the old order.
    @Test func anOrderIsOfItsGeneration() async throws {
        let coordinator = try await makeCoordinator(IndexTests.model(), .binary)
        let writer = backgroundContext(coordinator)
        try await writer.perform { context in
            for rank in 0..<10 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("code \(rank)", forKey: "code")
                try item.setValue(rank, forKey: "rank")
            }
            try context.save()
        }
        var request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [FetchSortDescriptor(key: "rank", ascending: false)])
        request.fetchLimit = 3
        let pinned = backgroundContext(coordinator)
        let before = try await pinned.perform { [request] context in
            try context.setQueryGenerationFrom(.current)
            return try context.fetch(request).map { try $0.value(forKey: "rank") as? Int }
        }
        #expect(before == [9, 8, 7])
        try await writer.perform { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("late", forKey: "code")
            try item.setValue(100, forKey: "rank")
            try context.save()
        }
        let after = try await backgroundContext(coordinator).perform { [request] context in
            try context.fetch(request).map { try $0.value(forKey: "rank") as? Int }
        }
        #expect(after == [100, 9, 8])
        let stillBefore = try await pinned.perform { [request] context in
            try context.fetch(request).map { try $0.value(forKey: "rank") as? Int }
        }
        #expect(stillBefore == [9, 8, 7])
    }

    /// A page of a sorted fetch with a predicate no index serves walks the order until the page
    /// is full: the rows it tests are about the page's, not the table's.
    @Test func aPageWithAPredicateWalksTheOrder() async throws {
        let coordinator = try await makeCoordinator(IndexTests.model(), .binary)
        let (walked, scanned, same) = try await backgroundContext(coordinator).perform { context in
            for rank in 0..<1_000 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("code \(rank)", forKey: "code")
                try item.setValue(rank % 10, forKey: "rank")
                try item.setValue(rank % 2 == 0 ? "even" : nil, forKey: "note")
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [FetchSortDescriptor(key: "code", ascending: true)])
            request.predicate = try FetchPredicate(format: "note != nil")
            request.fetchOffset = 20
            request.fetchLimit = 10
            let fast = try context.fetchObjectIDs(request)
            let walked = context.graph.rowsConsidered
            request.usesFastPaths = false
            let slow = try context.fetchObjectIDs(request)
            return (walked, context.graph.rowsConsidered, fast == slow && fast.count == 10)
        }
        #expect(same)
        #expect(walked < 100, "half the rows match: the 30 matches up to the page's end are about 60 rows of the order")
        #expect(scanned == 1_000)
    }
}
