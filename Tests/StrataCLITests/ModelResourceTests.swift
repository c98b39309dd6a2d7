import Foundation
import Testing

/// `PersistentContainer(name:)` alone, in a program whose model ships as a SwiftPM resource
/// (`Samples/Notes`), run from wherever it was built.
@Suite struct ModelResourceTests {
    @Test func theSampleFindsItsModelAmongItsResources() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Notes.store").path
        for count in ["1 note", "2 notes"] {
            let result = try StrataTool.run([store], product: "notes-sample")
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Model 'Notes' found among the resources; the store holds \(count)\n")
        }
    }
}
