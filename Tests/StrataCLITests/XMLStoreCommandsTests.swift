import Foundation
import Strata
import StrataTestSupport
import Testing

/// Every `strata` command on Core Data's XML store (issue 29, §3), as on the other store files:
/// import into a new `.xml` file, inspect, verify, dump, and migrate through every version.
@Suite struct XMLStoreCommandsTests {
    @Test func everyCommandHandlesAnXMLStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-xml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Library.xml")
        let imported = try await StrataTool.run(
            "import", store.path, "--model", MigrateCommandTests.libraryV1, "--from", "Migrations/library-v1.jsonl")
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(String(decoding: try Data(contentsOf: store).prefix(5), as: UTF8.self) == "<?xml")

        let inspected = try await StrataTool.run("inspect", store.path)
        #expect(inspected.status == 0, "\(inspected.errors)")
        #expect(inspected.output.contains("XML (Core Data's format)") && inspected.output.contains("type XML"), "\(inspected.output)")
        #expect(inspected.output.contains("    Book "))

        let verified = try await StrataTool.run("verify", store.path)
        #expect(verified.status == 0, "\(verified.output)\(verified.errors)")
        #expect(verified.output.contains(": sound ("))

        let dumped = try await StrataTool.run("dump", store.path)
        #expect(dumped.status == 0, "\(dumped.errors)")
        let books = dumped.output.split(separator: "\n").filter { $0.contains(#""entity":"Book""#) }
        #expect(!books.isEmpty)

        let migrated = try await StrataTool.run("migrate", store.path, "--model", MigrateCommandTests.library)
        #expect(migrated.status == 0, "\(migrated.output)\(migrated.errors)")
        #expect(migrated.output.contains("Migrated to 'Library 4' and verified"), "\(migrated.output)")
        let after = try await StrataTool.run("dump", store.path)
        #expect(after.status == 0, "\(after.errors)")
        #expect(after.output.split(separator: "\n").count >= books.count)

        // A damaged file is reported, not crashed on.
        try Data(String(decoding: try Data(contentsOf: store), as: UTF8.self).replacingOccurrences(of: "</database>", with: "").utf8).write(to: store)
        let damaged = try await StrataTool.run("verify", store.path)
        #expect(damaged.status != 0)
        #expect((damaged.output + damaged.errors).contains("not a Core Data XML store that reads"))
    }
}
