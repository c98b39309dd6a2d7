import Foundation
import Testing

/// `PersistentContainer(name:)` alone, in a program whose model ships as a SwiftPM resource
/// (`Samples/Notes`), run from wherever it was built; then Core Data's manual stack (model file,
/// coordinator, `addPersistentStore(type: .sqlite, …)` with the two migration options, a
/// main-queue context) on the same store.
@Suite struct ModelResourceTests {
    @Test func theSampleFindsItsModelAmongItsResources() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Notes.sqlite").path
        for (count, texts) in [("1 note", "Bought milk, Called the plumber"), ("3 notes", "Bought milk, Called the plumber, Bought milk, Called the plumber")] {
            let result = try StrataTool.run([store], product: "notes-sample")
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Model 'Notes' found among the resources; the SQLite store holds \(count)\n"
                + "The manual stack opened the same store: \(texts)\n")
        }
    }
}
