import Foundation
import Testing

/// `Samples/LiveResults` (issue 32): a controller and a watched fetch on a main-queue context
/// follow another process's saves; the controller tells each change at its index path, one
/// transaction at a time (history is merged in order), and ends showing the writer's last state.
@Suite struct LiveResultsSampleTests {
    @Test func theControllerAndTheWatchedFetchFollowTheWriter() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Notes.sqlite").path
        let result = try await StrataTool.run([store], product: "live-results-sample")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            controller: insert Milk at 0
            controller: insert Bread at 0
            controller: insert Tea at 2
            controller: delete Tea from 2
            controller: update Oat milk from 1 at 1
            watched: Bread, Oat milk (2 notes)
            controller shows: Bread, Oat milk
            store: \(store)

            """)
    }
}
