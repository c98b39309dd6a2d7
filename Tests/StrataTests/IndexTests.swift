import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Indexed fetches, compiled row tests and the general evaluator give the same results, on random
/// data and random predicates.
@Suite struct IndexTests {
    static func model() throws -> ManagedObjectModel {
        var score = AttributeDescription(name: "score", type: .double, isOptional: true)
        score.isIndexed = true
        var item = EntityDescription("Item") {
            AttributeDescription("code", .string)
            AttributeDescription("rank", .integer32)
            AttributeDescription("note", .string, optional: true)
            FetchIndexDescription("byCode", "code")
            FetchIndexDescription("byRank", "rank")
        }
        item.attributes.append(score)
        let special = EntityDescription("Special", superentity: "Item") { AttributeDescription("level", .integer16, defaultValue: 1) }
        return try ManagedObjectModel(entities: [item, special])
    }

    @Test func theModelsIndexesAreTheLayoutsIndexedAttributes() throws {
        let model = try Self.model()
        let layout = try #require(model.layout(for: "Special"))
        #expect(Set(layout.indexedAttributes.map { layout.attributes[$0].name }) == ["code", "rank", "score"])
    }

    @Test func indexedAndScannedFetchesAgree() async throws {
        // A failure prints its seed; `STRATA_INDEX_SEED` replays it.
        let seed = ProcessInfo.processInfo.environment["STRATA_INDEX_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let coordinator = try await makeCoordinator(Self.model())
        let codes = ["alpha", "beta", "gamma", "delta", "alphabet", "be", "zeta"]
        try await backgroundContext(coordinator).perform { [random] context in
            var random = random
            for index in 0..<1500 {
                let item = try context.insertNewObject(forEntityName: index % 5 == 0 ? "Special" : "Item")
                try item.setValue("\(codes.randomElement(using: &random)!)\(Int.random(in: 0..<20, using: &random))", forKey: "code")
                try item.setValue(Int.random(in: 0..<300, using: &random), forKey: "rank")
                if Bool.random(using: &random) { try item.setValue(Double(Int.random(in: 0..<100, using: &random)) / 4, forKey: "score") }
            }
            try context.save()
        }
        let templates = [
            "rank == %@", "rank IN %@", "rank < %@", "rank >= %@", "rank BETWEEN %@", "code == %@", "code BEGINSWITH %@",
            "score > %@", "score == nil", "score <= %@ AND rank > %@", "%@ > rank", "code IN %@", "code == %@ OR rank == 3",
            "rank == %@ AND code BEGINSWITH[c] 'A'", "NOT rank > %@ OR score == nil", "score != %@", "rank != nil AND note == nil",
            "rank IN {7, %@, 7}", "rank BETWEEN {%@, 250}",
        ]
        for round in 0..<60 {
            let template = templates[round % templates.count]
            let arguments: [Any] = template.components(separatedBy: "%@").dropFirst().map { _ in
                if template.hasPrefix("code") {
                    if template.contains("IN") { return [codes.randomElement(using: &random)! + "1", "beta2", "nothing"] }
                    return template.contains("BEGINSWITH")
                        ? String(codes.randomElement(using: &random)!.prefix(Int.random(in: 1...3, using: &random)))
                        : "\(codes.randomElement(using: &random)!)\(Int.random(in: 0..<20, using: &random))"
                }
                if template.contains("{") { return Int.random(in: 0..<300, using: &random) }
                if template.contains("BETWEEN") {
                    let low = Int.random(in: 0..<300, using: &random)
                    return [low, low + Int.random(in: 0..<50, using: &random)]
                }
                if template.contains("IN") { return [Int.random(in: 0..<300, using: &random), 7, 1000] }
                if template.hasPrefix("score") { return Double(Int.random(in: 0..<100, using: &random)) / 4 }
                return Int.random(in: 0..<300, using: &random)
            }
            let predicate = try FetchPredicate(format: template, argumentArray: arguments)
            let withPendingChanges = round % 3 == 0
            let results = try await backgroundContext(coordinator).perform { context in
                if withPendingChanges {
                    // Unsaved changes: some edits, a delete and an insert.
                    let some = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                    for (offset, object) in some.prefix(40).enumerated() {
                        if offset % 7 == 0 { context.delete(object) } else { try object.setValue(offset, forKey: "rank") }
                    }
                    let fresh = try context.insertNewObject(forEntityName: "Item")
                    try fresh.setValue("alpha1", forKey: "code")
                    try fresh.setValue(3, forKey: "rank")
                }
                var indexed = FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)
                var scanned = indexed
                scanned.usesFastPaths = false
                indexed.usesFastPaths = true
                let a = try context.fetchObjectIDs(indexed).map(\.description).sorted()
                let b = try context.fetchObjectIDs(scanned).map(\.description).sorted()
                return (a, b)
            }
            #expect(results.0 == results.1, "\(predicate) (seed \(seed), round \(round))")
        }
    }

    @Test func anIndexNarrowsTheRowsAFetchLooksAt() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let (indexed, scanned, unindexed) = try await backgroundContext(coordinator).perform { context in
            for rank in 0..<500 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("code\(rank)", forKey: "code")
                try item.setValue(rank, forKey: "rank")
                try item.setValue("note \(rank)", forKey: "note")
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try FetchPredicate(format: "rank == 42"))
            #expect(try context.fetch(request).count == 1)
            let indexed = context.graph.rowsConsidered
            request.usesFastPaths = false
            _ = try context.fetch(request)
            let scanned = context.graph.rowsConsidered
            request.predicate = try FetchPredicate(format: "note == 'note 42'")
            request.usesFastPaths = true
            _ = try context.fetch(request)
            return (indexed, scanned, context.graph.rowsConsidered)
        }
        #expect(indexed == 1)
        #expect(scanned == 500)
        #expect(unindexed == 500, "an attribute without an index is scanned")
    }

    /// Found by `indexedAndScannedFetchesAgree` (seed 16240072462692587690): a value named twice in
    /// an `IN` list was looked up twice, and its object fetched twice.
    @Test func aValueNamedTwiceInAnInListIsFetchedOnce() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let results = try await backgroundContext(coordinator).perform { context in
            for rank in 0..<20 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("c\(rank)", forKey: "code")
                try item.setValue(rank, forKey: "rank")
            }
            try context.save()
            var results: [([String?], Int)] = []
            for predicate in [
                try FetchPredicate(format: "rank IN {7, 7, 12, 7}"),
                try FetchPredicate(format: "rank IN %@", [7, 7, 12, 7]),
            ] {
                let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)
                let codes = try context.fetch(request).map { try $0.value(forKey: "code") as? String }
                results.append((codes.sorted { ($0 ?? "") < ($1 ?? "") }, context.graph.rowsConsidered))
            }
            return results
        }
        for (codes, considered) in results {
            #expect(codes == ["c12", "c7"])
            #expect(considered == 2, "the index narrows the fetch to the values named, literal or argument")
        }
    }

    @Test func sortingAndLimitsWorkOnIndexedFetches() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let ranks = try await backgroundContext(coordinator).perform { context in
            for rank in [5, 3, 9, 1, 7] {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("c\(rank)", forKey: "code")
                try item.setValue(rank, forKey: "rank")
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try FetchPredicate(format: "rank > 2"))
            request.sortDescriptors = [.descending("rank")]
            request.fetchLimit = 3
            return try context.fetch(request).map { try $0.value(forKey: "rank") as? Int32 }
        }
        #expect(ranks == [9, 7, 5])
    }
}
