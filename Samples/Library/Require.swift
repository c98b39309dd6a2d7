/// A value the demo expected and did not find.
struct MissingValue: Error, CustomStringConvertible {
    let what: String
    var description: String { "the demo expected \(what) and found nothing" }
}

/// Unwraps a value the demo knows is there, or stops it with an error that says what was missing.
nonisolated func require<T>(_ value: T?, _ what: String = "\(T.self)") throws -> T {
    guard let value else { throw MissingValue(what: what) }
    return value
}
