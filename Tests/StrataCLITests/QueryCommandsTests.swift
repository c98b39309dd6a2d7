import Foundation
import Testing

/// `strata query` and `strata predicate`, run as a user would.
@Suite struct QueryCommandsTests {
    @Test func predicatePrintsTheNormalisedForm() async throws {
        let result = try await StrataTool.run("predicate", "title =[c] 'emma' && NOT pages < 300")
        #expect(result.status == 0)
        #expect(result.output == "title ==[c] \"emma\" AND NOT pages < 300\n")
    }

    /// A format string pasted from code: its specifiers stay as placeholders, or take values.
    @Test(arguments: [
        (["%K == %@ AND pages > %d"], "%K == %@ AND pages > %d"),
        (["%K == %@ AND pages > %d", "--arg", "title", "--arg", "Emma"], "title == \"Emma\" AND pages > %d"),
        (["%K BEGINSWITH[cd] %@ OR rating >= %f", "--args", #"["name", "A", 4.5]"#], "name BEGINSWITH[cd] \"A\" OR rating >= 4.5"),
        (["tags IN %@", "--args", #"[["a", 2, true, null]]"#], "tags IN {\"a\", 2, YES, nil}"),
        (["isDone"], "isDone == YES"),
        (["%K AND NOT archived", "--arg", "isDone"], "isDone == YES AND NOT archived == YES"),
    ])
    func predicateTakesFormatStringsAsCodeWritesThem(_ arguments: [String], _ expected: String) async throws {
        let result = try await StrataTool.run(["predicate"] + arguments)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == expected + "\n")
    }

    @Test func predicateShowsWhereAParseErrorIs() async throws {
        let result = try await StrataTool.run("predicate", "pages >= ")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errors == "Error: expected a value after '>=' at column 10\n  pages >= \n           ^\n")
    }

    @Test func queryFiltersSortsAndLimitsWithoutAModel() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.store").path
        #expect(try await StrataTool.run(
            "import", store, "--model", StoreCommandsTests.model, "--from", StoreCommandsTests.objects).status == 0)

        let table = try await StrataTool.run("query", store, "--entity", "Book", "--where", "author.name BEGINSWITH 'Jane'", "--sort", "pages:desc")
        #expect(table.status == 0, "\(table.errors)")
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("id") && lines[0].contains("title"))
        #expect(lines[1].contains("Emma") && lines[2].contains("Persuasion"))

        let json = try await StrataTool.run("query", store, "--entity", "Chapter", "--sort", "title", "--limit", "1", "--format", "json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["values"] as? [String: Any])?["title"] as? String == "Preface")

        let unknown = try await StrataTool.run("query", store, "--entity", "Book", "--where", "titel == 'x'")
        #expect(unknown.status != 0)
        #expect(unknown.errors == "Error: the entity Book has no key 'titel'\n")
    }
}
