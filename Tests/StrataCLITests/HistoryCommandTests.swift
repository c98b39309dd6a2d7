import Foundation
import Testing

/// `strata import --history` records the import in persistent history, and `strata history`
/// lists it, as text or JSON Lines, after a token or not; on both store types.
@Suite struct HistoryCommandTests {
    static let model = "Migrations/Contacts.xcdatamodeld/Contacts.xcdatamodel"

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(arguments: ["store", "sqlite"])
    func importsAreRecordedAndListed(_ kind: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Contacts.\(kind)").path
        let people = directory.appendingPathComponent("people.jsonl")
        try Data("""
            {"entity": "Person", "id": "a", "values": {"firstName": "Ada", "lastName": "Lovelace", "phone": "555"}}
            {"entity": "Person", "id": "b", "values": {"firstName": "Alan", "lastName": "Turing", "phone": "556"}}
            """.utf8).write(to: people)
        for _ in 0..<2 {
            let imported = try await StrataTool.run("import", store, "--model", Self.model, "--from", people.path, "--history")
            #expect(imported.status == 0, "\(imported.errors)")
        }
        // A store that records history takes no import that would not be recorded.
        let refused = try await StrataTool.run("import", store, "--model", Self.model, "--from", people.path)
        #expect(refused.status != 0)
        #expect(refused.errors.contains("records persistent history: import with --history"), "\(refused.errors)")

        let listed = try await StrataTool.run("history", store, "--json")
        #expect(listed.status == 0, "\(listed.errors)")
        let lines = listed.output.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        try #require(lines.count == 2)
        #expect(lines.map { $0["number"] as? Int } == [1, 2])
        #expect(lines.allSatisfy { ($0["process"] as? String) == "strata" && $0["timestamp"] is String })
        let changes = lines.map { ($0["changes"] as? [[String: Any]]) ?? [] }
        #expect(changes.map(\.count) == [2, 2])
        #expect(changes.joined().allSatisfy { ($0["type"] as? String) == "insert" && (($0["id"] as? String)?.contains("/Person/p") ?? false) })

        let token = try #require(lines.first?["token"] as? String)
        let after = try await StrataTool.run("history", store, "--after", token, "--json")
        #expect(after.output.split(separator: "\n").count == 1)
        #expect(try await StrataTool.run("history", store, "--after", "2").output == "no history after 2\n")
        let text = try await StrataTool.run("history", store)
        #expect(text.output.contains("transaction \(token)  "), "\(text.output)")
        #expect(text.output.contains("  2 changes\n  insert x-coredata://"))

        let bad = try await StrataTool.run("history", store, "--after", "nonsense")
        #expect(bad.status != 0 && bad.errors.contains("'nonsense' is not a history token"))
    }
}
