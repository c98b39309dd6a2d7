import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Sums and averages do not depend on the order of their values, so that SQL (which visits
/// rows in its plan's order) and the predicate evaluator answer alike, bit for bit.
@Suite struct NumericSumTests {
    static func sum(_ values: [EvaluationValue]) -> NumericSum {
        var sum = NumericSum()
        for value in values {
            let added = sum.add(value)
            #expect(added)
        }
        return sum
    }

    static func double(_ value: EvaluationValue) -> Double? {
        if case .double(let number) = value { return number }
        return nil
    }

    @Test func cancellingDoublesSumExactlyInEveryOrder() {
        // Left to right, 1e16 + 1 rounds back to 1e16 and the 1 is lost.
        #expect([1e16, 1, -1e16].reduce(0, +) == 0)
        let values: [Double] = [1e16, 1, -1e16]
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            #expect(Self.double(Self.sum(order.map { .double(values[$0]) }).sum) == 1)
        }
        // Rounded once, ties to even, with what lies below deciding (Python's fsum cases).
        #expect(Self.double(Self.sum([.double(1e-16), .double(1), .double(1e16)]).sum) == 10000000000000002)
        #expect(Self.double(Self.sum([.double(0.1), .double(0.2), .double(0.3)]).sum) == 0.6)
        #expect(Self.double(Self.sum([.double(.infinity), .double(1), .double(-.infinity)]).sum)?.isNaN == true)
    }

    /// Seeded random doubles of many magnitudes: every order gives the same bits, and they are
    /// the exact sum (computed in 128-bit integers) rounded once.
    @Test func seededRandomDoublesSumToTheRoundedExactSum() {
        var random = SplitMix64(seed: 0x5EED)
        for _ in 0..<200 {
            // Each value a 50-bit integer scaled by 2^-s: the exact sum is an Int128 over 2^40.
            let parts = (0..<Int.random(in: 1..<60, using: &random)).map { _ in
                (Int64.random(in: -(1 << 50)...(1 << 50), using: &random), Int.random(in: 0...40, using: &random))
            }
            let values = parts.map { Double($0.0) * Double(sign: .plus, exponent: -$0.1, significand: 1) }
            let exact = parts.reduce(Int128(0)) { $0 + Int128($1.0) << (40 - $1.1) }
            let rounded = Double(exact) * Double(sign: .plus, exponent: -40, significand: 1)
            let expected = Self.sum(values.map(EvaluationValue.double))
            #expect(Self.double(expected.sum) == rounded)
            for _ in 0..<5 {
                let shuffled = Self.sum(values.shuffled(using: &random).map(EvaluationValue.double))
                #expect(Self.double(shuffled.sum)?.bitPattern == Self.double(expected.sum)?.bitPattern)
                #expect(Self.double(shuffled.average)?.bitPattern == Self.double(expected.average)?.bitPattern)
            }
        }
    }

    @Test func integersStayIntegersUntilTheyOverflowOrMeetAnotherKind() {
        #expect(Self.sum([.integer(Int64.max - 1), .integer(1), .integer(-5)]).sum.sendable as? Int64 == Int64.max - 5)
        #expect(Self.sum([.integer(Int64.max), .integer(1)]).sum.sendable as? Double == 9223372036854775808)
        #expect(Self.sum([.integer(1), .null, .integer(2)]).sum.sendable as? Double == 3, "a nil makes the sum a double, as before")
        #expect(Self.sum([.integer(1), .bool(true)]).sum.sendable as? Double == 2)
        #expect(Self.sum([]).sum.sendable as? Int64 == 0)
        #expect(Self.sum([]).average.sendable == nil)
        #expect(Self.sum([.integer(1), .null, .integer(2)]).average.sendable as? Double == 1.5, "nil is not counted")
        var sum = NumericSum()
        let added = sum.add(.string("1"))
        #expect(!added, "a string is no number")
    }

    /// Doubles whose left-to-right sum depends on their order, grouped and averaged in SQL and in
    /// memory: the same bits from both stores, and from SQL in either insertion order.
    @Test(arguments: [false, true])
    func doubleSumsAreTheSameFromBothStores(reversed: Bool) async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reading") {
                AttributeDescription("sensor", .string)
                AttributeDescription("value", .double, optional: true)
                AttributeDescription("weight", .float)
                AttributeDescription("amount", .decimal)
            }
        }
        var random = SplitMix64(seed: 7)
        var readings = (0..<200).map { index -> (String, Double?, Float, Decimal) in
            let value = [1e16, -1e16, 0.1, 3.3, 1e-3, nil][Int.random(in: 0..<6, using: &random)]
            return (["a", "b", "c"][index % 3], value, Float(Double(index) / 7), Decimal(index) / 4)
        }
        if reversed { readings.reverse() }
        let inserted = readings
        func groups(_ kind: StoreKind) async throws -> [String] {
            let coordinator = try await makeCoordinator(model, kind)
            return try await backgroundContext(coordinator).perform { context in
                for (sensor, value, weight, amount) in inserted {
                    let reading = try context.insertNewObject(forEntityName: "Reading")
                    try reading.setValue(sensor, forKey: "sensor")
                    try reading.setValue(value, forKey: "value")
                    try reading.setValue(weight, forKey: "weight")
                    try reading.setValue(amount, forKey: "amount")
                }
                try context.save()
                context.reset()
                var request = FetchRequest<ManagedObject>(entityName: "Reading", sortDescriptors: [.ascending("sensor")])
                request.propertiesToGroupBy = ["sensor"]
                request.propertiesToFetch = try ["sensor"].map { ExpressionDescription.key($0) } + [
                    "sum:(value)", "average:(value)", "sum:(weight)", "average:(weight)", "sum:(amount)",
                ].map { ExpressionDescription(name: $0, expression: try ValueExpression(format: $0)) }
                let rows = try context.fetchDictionaries(request)
                if kind == .sqlite { #expect(context.graph.rowsConsidered == 0, "grouped in SQL") }
                return rows.map { row in
                    row.keys.sorted().map { key in "\(key)=\((row[key] as? Double)?.bitPattern.description ?? "\(row[key] ?? "nil")")" }
                        .joined(separator: ",")
                }
            }
        }
        let expected = try await groups(.inMemory)
        #expect(try await groups(.sqlite) == expected)
        #expect(expected.count == 3)
    }

    /// `@sum` and `@avg` of a to-many's doubles in a predicate, in SQL: every account's entries
    /// sum to exactly 1 whatever order they were inserted in, which adding left to right would not.
    @Test func toManyAggregatesOfDoublesMatchTheSameObjects() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Account") {
                AttributeDescription("name", .string)
                RelationshipDescription("entries", toMany: "Entry", inverse: "account")
            }
            EntityDescription("Entry") {
                AttributeDescription("amount", .double)
                RelationshipDescription("account", toOne: "Account", inverse: "entries")
            }
        }
        let orders = [[1e16, 1, -1e16], [1, 1e16, -1e16], [-1e16, 1e16, 1], [1e16, -1e16, 1]]
        func names(_ kind: StoreKind, matching format: String) async throws -> [String] {
            let coordinator = try await makeCoordinator(model, kind)
            return try await backgroundContext(coordinator).perform { context in
                for (index, amounts) in orders.enumerated() {
                    let account = try context.insertNewObject(forEntityName: "Account")
                    try account.setValue("account \(index)", forKey: "name")
                    for amount in amounts {
                        let entry = try context.insertNewObject(forEntityName: "Entry")
                        try entry.setValue(amount, forKey: "amount")
                        try entry.setValue(account, forKey: "account")
                    }
                }
                let empty = try context.insertNewObject(forEntityName: "Account")
                try empty.setValue("empty", forKey: "name")
                try context.save()
                let request = FetchRequest<ManagedObject>(
                    entityName: "Account", predicate: try FetchPredicate(format: format), sortDescriptors: [.ascending("name")])
                let found = try context.fetch(request).map { try $0.value(forKey: "name") as? String ?? "?" }
                if kind == .sqlite { #expect(context.graph.rowsConsidered == found.count, "matched in SQL") }
                return found
            }
        }
        let all = (0..<4).map { "account \($0)" }
        for (format, expected) in [
            ("entries.@sum.amount == 1", all), ("entries.@avg.amount == \((1.0 / 3).description)", all), ("entries.@sum.amount == 0", ["empty"]),
            ("entries.@avg.amount == nil", ["empty"]), ("entries.@max.amount > 1", all), ("entries.@min.amount < 0", all),
        ] {
            #expect(try await names(.inMemory, matching: format) == expected, "\(format)")
            #expect(try await names(.sqlite, matching: format) == expected, "\(format)")
        }
    }
}
