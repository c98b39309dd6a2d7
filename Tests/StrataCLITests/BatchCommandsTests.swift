import Foundation
import Testing

/// `strata update` and `strata delete`: batch requests on a store file, counted, and recorded in
/// its persistent history when it records history.
@Suite struct BatchCommandsTests {
    static let model = "Migrations/Contacts.xcdatamodeld/Contacts.xcdatamodel"

    @Test(arguments: ["store", "sqlite"], [false, true])
    func updateAndDeleteChangeWhatMatches(_ kind: String, history: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Contacts.\(kind)").path
        let people = directory.appendingPathComponent("people.jsonl")
        try Data("""
            {"entity": "Person", "id": "a", "values": {"firstName": "Ada", "lastName": "Lovelace", "phone": "555"}}
            {"entity": "Person", "id": "b", "values": {"firstName": "Alan", "lastName": "Turing", "phone": "556"}}
            {"entity": "Person", "id": "c", "values": {"firstName": "Grace", "lastName": "Hopper", "phone": "557"}}
            """.utf8).write(to: people)
        let imported = try await StrataTool.run(["import", store, "--model", Self.model, "--from", people.path] + (history ? ["--history"] : []))
        #expect(imported.status == 0, "\(imported.errors)")

        let updated = try await StrataTool.run("update", store, "--entity", "Person", "--where", "firstName BEGINSWITH 'A'", "--set", "phone='000'")
        #expect(updated.status == 0, "\(updated.errors)")
        #expect(updated.output == "updated 2 objects in \(store)\n")
        let deleted = try await StrataTool.run("delete", store, "--entity", "Person", "--where", "lastName == 'Turing'")
        #expect(deleted.output == "deleted 1 object from \(store)\n", "\(deleted.errors)")

        let query = try await StrataTool.run("query", store, "--entity", "Person", "--sort", "firstName", "--format", "json")
        let phones = query.output.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["values"] as? [String: Any]
        }.map { "\($0["firstName"] ?? "") \($0["phone"] ?? "")" }
        #expect(phones == ["Ada 000", "Grace 557"])

        let listed = try await StrataTool.run("history", store)
        if history {
            #expect(listed.output.contains("author strata  process strata  2 changes\n  update "), "\(listed.output)")
            #expect(listed.output.contains("author strata  process strata  1 change\n  delete "), "\(listed.output)")
        } else {
            #expect(listed.output == "no history\n")
        }

        let bad = try await StrataTool.run("update", store, "--entity", "Person", "--set", "phone")
        #expect(bad.status != 0 && bad.errors.contains("'phone' is not KEY=EXPRESSION"))
        let wrongType = try await StrataTool.run("update", store, "--entity", "Person", "--set", "phone=12")
        #expect(wrongType.status != 0 && wrongType.errors.contains("is not a value for the String attribute 'phone'"))
    }
}
