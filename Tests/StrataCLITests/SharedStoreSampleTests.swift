import Foundation
import Testing

/// `Samples/SharedStore`: the sample starts its writer process and prints every transaction it
/// hears of, in order, then what its context holds after merging them.
@Suite struct SharedStoreSampleTests {
    @Test func theReaderSeesEveryTransactionOfTheWriterInOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Notes.sqlite").path
        let result = try await StrataTool.run([store], product: "shared-store-sample")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            transaction 1 by writer: insert p1
            transaction 2 by writer: insert p2
            transaction 3 by writer: insert p3
            transaction 4 by writer: insert p4
            transaction 5 by writer: insert p5
            transaction 6 by writer: update p1, delete p2
            the reader's context now holds: Note 1, edited; Note 3; Note 4; Note 5
            deleted 5 transactions of history, kept transaction 6 on
            store: \(store)

            """)
    }
}
