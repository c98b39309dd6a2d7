import Foundation
import Testing

/// `Samples/Notes`, run from wherever it was built: stores its model's previous version wrote
/// (SQLite and binary) migrate on open through Core Data's manual stack (model file, coordinator,
/// `addPersistentStore` with the two migration options alone, a main-queue context); then
/// `PersistentContainer(name:)` alone finds the model among the program's resources.
@Suite struct ModelResourceTests {
    @Test func theSampleFindsItsModelAmongItsResources() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Notes.sqlite").path
        let left = "The app's previous version left a SQLite store with a note\nThe app's previous version left a Binary store with a note\n"
        for (run, bodies) in ["Bought milk, Called the plumber", "Bought milk, Called the plumber, Called the plumber"].enumerated() {
            let result = try await StrataTool.run([store], product: "notes-sample")
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == (run == 0 ? left : "")
                + "The manual stack opened the SQLite store at version 'Notes 2': \(bodies)\n"
                + "The manual stack opened the Binary store at version 'Notes 2': \(bodies)\n"
                + "Model 'Notes' found among the resources; the SQLite store holds \(run + 2) notes\n")
        }
    }
}
