import Foundation

/// One person of the generated data set, as every peer sees it: the same values for Strata,
/// GRDB, JSON and the hand-written LZ4 file.
public struct PersonRecord: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var email: String
    public var age: Int
    public var score: Double
    public var created: Date
    /// Every tenth person is a manager; the nine after it report to it.
    public var managerID: Int?

    /// `count` people, the same on every call: one run's peers all work on equal data.
    public static func generate(count: Int) -> [PersonRecord] {
        var managerID: Int?
        return (0..<count).map { index in
            let record = PersonRecord(
                id: index,
                name: "Person \(index)",
                email: "p\(index)@example.org",
                age: index % 100,
                score: Double(index) * 0.5,
                created: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
                managerID: index % 10 == 0 ? nil : managerID
            )
            if index % 10 == 0 { managerID = index }
            return record
        }
    }

    /// The emails that the lookup workload asks for: spread over the whole set.
    public static func lookupEmails(count: Int, among total: Int) -> [String] {
        (0..<count).map { "p\($0 &* 7_919 % total)@example.org" }
    }

    /// The bound of the range scan: about one person in a hundred matches `score < bound`.
    public static func scanBound(among total: Int) -> Double { Double(total) * 0.005 }
}
