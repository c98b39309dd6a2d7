import Foundation
import Strata
import Testing

/// Numbers as Core Data's key-value coding gives them (issue 33): `value(forKey:)`,
/// `changedValues()`, `committedValues(forKeys:)`, dictionary results and evaluated expressions
/// hold `NSNumber`s, as Core Data's do, so that the casts Core Data code writes
/// (`as? Int` on an Integer 16 attribute, `as? Double`, `as? NSNumber`) read the value instead
/// of a silent `nil`; and `NSNumber` arguments of predicates keep their kind (a 1 is not `true`).
@Suite struct KeyValueNumberTests {
    final class Gauge: ManagedObject {
        @Attribute var small: Int16
        @Attribute var ratio: Double
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Gauge", class: Gauge.self) {
                AttributeDescription("small", .integer16, defaultValue: 0)
                AttributeDescription("medium", .integer32, defaultValue: 0)
                AttributeDescription("large", .integer64, defaultValue: 0)
                AttributeDescription("ratio", .double, defaultValue: 0)
                AttributeDescription("share", .float, defaultValue: 0)
                AttributeDescription("on", .boolean, defaultValue: false)
                AttributeDescription("price", .decimal, optional: true)
            }
        }
    }

    static func insertGauges(_ context: isolated ManagedObjectContext) throws {
        for (small, on) in [(Int16(1), false), (7, true)] {
            let gauge = try Gauge(context: context)
            gauge.small = small
            try gauge.setValue(Int(small) * 1_000, forKey: "medium")
            try gauge.setValue(NSNumber(value: Int64(small) * 1_000_000), forKey: "large")
            gauge.ratio = Double(small) + 1.5
            try gauge.setValue(Float(0.25), forKey: "share")
            try gauge.setValue(on, forKey: "on")
            try gauge.setValue(Decimal(string: "9.99"), forKey: "price")
        }
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func valuesByKeyAreNumbersOfAnyWidth(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model(), kind)
        try await backgroundContext(coordinator).perform { context in
            try Self.insertGauges(context)
            try context.save()
            context.reset()
            var request = FetchRequest<Gauge>()
            request.predicate = try FetchPredicate(format: "small == 7")
            let gauge = try #require(try context.fetch(request).first)
            #expect(try gauge.value(forKey: "small") as? Int == 7, "Integer 16 read as Int")
            #expect(try gauge.value(forKey: "small") as? Int16 == 7)
            #expect(try gauge.value(forKey: "medium") as? Int == 7_000)
            #expect(try gauge.value(forKey: "large") as? Int64 == 7_000_000)
            #expect((try gauge.value(forKey: "large") as? NSNumber)?.intValue == 7_000_000)
            #expect(try gauge.value(forKey: "ratio") as? Double == 8.5)
            #expect(try gauge.value(forKey: "ratio") as? Int == nil, "8.5 is no Int, as with Core Data's NSNumber")
            #expect(try gauge.value(forKey: "share") as? Float == 0.25)
            #expect(try gauge.value(forKey: "on") as? Bool == true)
            #expect(try gauge.value(forKey: "price") as? Decimal == Decimal(string: "9.99"))

            try gauge.setValue(8, forKey: "medium")
            #expect(gauge.changedValues()["medium"].flatMap { $0 as? Int } == 8)
            #expect(gauge.committedValues(forKeys: ["medium"])["medium"].flatMap { $0 as? Int } == 7_000)
            let doubled = try ValueExpression(format: "small * 2").evaluate(with: gauge)
            #expect(doubled as? Int == 14)
        }
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func dictionaryResultsHoldNumbers(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model(), kind)
        let (rows, totals) = try await backgroundContext(coordinator).perform { context in
            try Self.insertGauges(context)
            try context.save()
            var request = FetchRequest<Gauge>(sortDescriptors: [.ascending("small")])
            request.propertiesToFetch = [.key("small"), .key("ratio")]
            let rows = try context.fetchDictionaries(request).map { row in
                [row["small"] as? Int, row["ratio"] as? Int, (row["ratio"] as? Double).map { Int($0 * 10) }]
            }
            var sums = FetchRequest<Gauge>()
            sums.propertiesToFetch = [
                ExpressionDescription(name: "total", expression: try ValueExpression(format: "sum:(medium)")),
                ExpressionDescription(name: "count", expression: try ValueExpression(format: "count:(small)")),
            ]
            let totals = try context.fetchDictionaries(sums).map { row in [row["total"] as? Int, row["count"] as? Int] }
            return (rows, totals)
        }
        #expect(rows == [[1, nil, 25], [7, nil, 85]])
        #expect(totals == [[8_000, 2]])
    }

    /// Core Data code passes `NSNumber`s to `%@`: a 1 compares as the number 1, a Boolean as one.
    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func predicatesTakeNumbersForWhatTheyHold(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model(), kind)
        let found = try await backgroundContext(coordinator).perform { context in
            try Self.insertGauges(context)
            try context.save()
            let cases: [(String, NSNumber)] = [
                ("small == %@", NSNumber(value: 1)), ("on == %@", NSNumber(value: true)), ("ratio > %@", NSNumber(value: 3.0)),
                ("large >= %@", NSNumber(value: UInt64(1_000_000))),
            ]
            return try cases.map { format, argument in
                var request = FetchRequest<Gauge>(sortDescriptors: [.ascending("small")])
                request.predicate = try FetchPredicate(format: format, argument)
                return try context.fetch(request).map(\.small)
            }
        }
        #expect(found == [[1], [7], [7], [1, 7]])
        #expect(try FetchPredicate(format: "small == %@", NSNumber(value: 1)).description == "small == 1")
        #expect(try FetchPredicate(format: "on == %@", NSNumber(value: false)).description == "on == NO")
    }

    @Test func anObjectOfNoContextEvaluatesPredicates() throws {
        let model = try Self.model()
        let gauge = try Gauge(entity: try #require(model.entitiesByName["Gauge"]), insertInto: nil)
        gauge.small = 3
        #expect(try FetchPredicate(format: "small > 2 AND on == NO").evaluate(with: gauge))
        #expect(try ValueExpression(format: "small + 1").evaluate(with: gauge) as? Int == 4)
    }
}
