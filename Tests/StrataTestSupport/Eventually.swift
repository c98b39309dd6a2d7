import Foundation

/// Whether `condition` holds within `seconds`, asked every 50 ms: for what a store does a
/// moment after a call returns (a transaction let go, a notification heard), however slow the
/// machine running the tests.
public func eventually(within seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
