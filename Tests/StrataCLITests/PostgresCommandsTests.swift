import Foundation
import Testing

/// The `strata` commands on a `postgres://` URL: import, query, update, delete, dump, inspect,
/// history, migrate and verify work on a PostgreSQL store as on a file.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil, "needs STRATA_POSTGRES_URL"))
struct PostgresCommandsTests {
    /// A store URL with a schema of its own on the test server.
    static func newStore() throws -> String {
        let server = try #require(ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"])
        return server + (server.contains("?") ? "&" : "?") + "schema=strata_cli_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// A folder of the test's own for the files it imports.
    static func temporaryFolder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func importQueryUpdateDeleteAndDumpAPostgresStore() async throws {
        let store = try Self.newStore()
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let people = directory.appendingPathComponent("people.jsonl")
        try Data("""
            {"entity": "Person", "id": "a", "values": {"firstName": "Ada", "lastName": "Lovelace", "phone": "555"}}
            {"entity": "Person", "id": "b", "values": {"firstName": "Alan", "lastName": "Turing", "phone": "556"}}
            {"entity": "Person", "id": "c", "values": {"firstName": "Grace", "lastName": "Hopper", "phone": "557"}}
            """.utf8).write(to: people)
        let imported = try await StrataTool.run("import", store, "--model", BatchCommandsTests.model, "--from", people.path)
        #expect(imported.status == 0, "\(imported.errors)")

        // No --model from here on: the store carries its model.
        let updated = try await StrataTool.run("update", store, "--entity", "Person", "--where", "firstName BEGINSWITH 'A'", "--set", "phone='000'")
        #expect(updated.output == "updated 2 objects in \(store)\n", "\(updated.errors)")
        let deleted = try await StrataTool.run("delete", store, "--entity", "Person", "--where", "lastName == 'Turing'")
        #expect(deleted.output == "deleted 1 object from \(store)\n", "\(deleted.errors)")
        let query = try await StrataTool.run("query", store, "--entity", "Person", "--sort", "firstName", "--format", "json")
        let phones = query.output.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["values"] as? [String: Any]
        }.map { "\($0["firstName"] ?? "") \($0["phone"] ?? "")" }
        #expect(phones == ["Ada 000", "Grace 557"], "\(query.errors)")
        let dumped = try await StrataTool.run("dump", store)
        #expect(dumped.status == 0 && dumped.output.split(separator: "\n").count == 2, "\(dumped.errors)")

        let inspect = try await StrataTool.run("inspect", store)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.hasPrefix("Store \(store)\n  PostgreSQL (Core Data's tables), type PostgreSQL, UUID "), "\(inspect.output)")
        #expect(inspect.output.contains("  objects: 2\n    Person 2\n  checks (strata verify): ok\n"), "\(inspect.output)")
        let inspectJSON = try await StrataTool.run("inspect", store, "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspectJSON.output.utf8)) as? [String: Any])
        #expect((report["objectCounts"] as? [String: Int]) == ["Person": 2])
        let noHistory = try await StrataTool.run("history", store)
        #expect(noHistory.status == 0 && noHistory.output == "no history\n", "\(noHistory.errors)")
        let withPassword = try await StrataTool.run("query", "postgres://app:hunter2@127.0.0.1:1/db", "--entity", "Person")
        #expect(withPassword.status != 0 && !withPassword.errors.contains("hunter2"), "\(withPassword.errors)")
    }

    @Test func migrateAPostgresStoreThroughEveryVersionAndVerifyIt() async throws {
        let store = try Self.newStore()
        let imported = try await StrataTool.run("import", store, "--model", MigrateCommandTests.libraryV1, "--from", "Migrations/library-v1.jsonl")
        #expect(imported.status == 0, "\(imported.errors)")
        // Checked with the bundle's version that wrote it, not its current one.
        let inspect = try await StrataTool.run("inspect", store, "--model", MigrateCommandTests.library)
        #expect(inspect.status == 0 && inspect.output.contains("  written by version 'Library' of Library\n"), "\(inspect.output)")
        #expect(inspect.output.hasSuffix("  objects: 10\n    Author 3\n    Book 5\n    Note 1\n    Publisher 1\n  checks (strata verify): ok\n"))
        let backup = try await StrataTool.run("migrate", store, "--model", MigrateCommandTests.library, "--backup", "/tmp/never")
        #expect(backup.status != 0 && backup.errors.contains("pg_dump"), "\(backup.errors)")

        let result = try await StrataTool.run("migrate", store, "--model", MigrateCommandTests.library)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Store \(store): written by version 'Library' of Library")
        #expect(lines.last == "Migrated to 'Library 4' and verified: 9 objects.")
        let verify = try await StrataTool.run("verify", store, "--model", MigrateCommandTests.library)
        #expect(verify.status == 0 && verify.output == "\(store): sound (9 objects)\n", "\(verify.output) \(verify.errors)")
        let again = try await StrataTool.run("migrate", store, "--model", MigrateCommandTests.library)
        #expect(again.output.contains("Nothing to do: the store is at 'Library 4'."), "\(again.errors)")
    }

    /// A store imported with `--history` records the import; a later import without it is
    /// refused before anything is written; `strata history` lists what was recorded, and
    /// `verify` finds the history tables no fault.
    @Test func historyOfAPostgresStore() async throws {
        let store = try Self.newStore()
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let people = directory.appendingPathComponent("people.jsonl")
        try Data(#"{"entity": "Person", "id": "a", "values": {"firstName": "Ada", "lastName": "Lovelace", "phone": "555"}}"#.utf8).write(to: people)
        let imported = try await StrataTool.run("import", store, "--model", BatchCommandsTests.model, "--from", people.path, "--history")
        #expect(imported.status == 0, "\(imported.errors)")
        let refused = try await StrataTool.run("import", store, "--model", BatchCommandsTests.model, "--from", people.path)
        #expect(refused.status != 0 && refused.errors.contains("records persistent history"), "\(refused.errors)")

        let history = try await StrataTool.run("history", store, "--json")
        let lines = history.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 1, "\(history.output) \(history.errors)")
        #expect(lines.first?["number"] as? Int == 1)
        #expect((lines.first?["changes"] as? [[String: Any]])?.map { $0["type"] as? String } == ["insert"])
        #expect(try await StrataTool.run("history", store, "--after", "1").output == "no history after 1\n")
        let verify = try await StrataTool.run("verify", store)
        #expect(verify.status == 0, "\(verify.output) \(verify.errors)")
    }
}
