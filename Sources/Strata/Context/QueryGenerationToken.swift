/// Names a generation of the store: what a context reads. Core Data's `NSQueryGenerationToken`.
public struct QueryGenerationToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    let number: UInt64

    /// The latest generation, whichever it is when a context is asked to move to it.
    public static let current = QueryGenerationToken(number: .max)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }

    public var description: String { self == .current ? "current" : "generation \(number)" }
}
