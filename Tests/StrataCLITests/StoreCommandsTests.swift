import Foundation
import Testing

/// `strata import`, `dump`, `inspect` and `verify`, run as a user would run them.
@Suite struct StoreCommandsTests {
    static let model = "Tests/Models/Library.xcdatamodel"
    static let objects = "Tests/Models/library.jsonl"

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The lines of a dump with store-specific IDs replaced by stable names (entity, sorted values).
    /// - Parameter sortingToManys: Whether to-many targets are compared as sets, for a dump whose
    ///   ordered relationships were unordered before (their first order is each store's own).
    func normalized(_ dump: String, sortingToManys: Bool = false) throws -> [String] {
        let lines = try dump.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        var names: [String: String] = [:]
        for line in lines {
            let values = line["values"] as? [String: Any] ?? [:]
            names[line["id"] as? String ?? ""] = "\(line["entity"] ?? "")(\(values["title"] ?? values["name"] ?? ""))"
        }
        return lines.map { line in
            let relationships = (line["relationships"] as? [String: Any] ?? [:]).mapValues { value -> Any in
                if let many = value as? [String] {
                    let named = many.map { names[$0] ?? $0 }
                    return sortingToManys ? named.sorted() : named
                }
                return names[value as? String ?? ""] ?? value
            }
            let copy: [String: Any] = ["entity": line["entity"] ?? "", "values": line["values"] ?? [:], "relationships": relationships]
            return String(decoding: try! JSONSerialization.data(withJSONObject: copy, options: [.sortedKeys]), as: UTF8.self)
        }.sorted()
    }

    @Test func importThenDumpThenImportAgainKeepsTheObjects() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first.store").path
        let imported = try await StrataTool.run("import", first, "--model", Self.model, "--from", Self.objects)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "imported 5 objects into \(first)\n")

        let dump = try await StrataTool.run("dump", first)
        #expect(dump.status == 0)
        let dumpFile = directory.appendingPathComponent("dump.jsonl")
        try Data(dump.output.utf8).write(to: dumpFile)
        let second = directory.appendingPathComponent("second.store").path
        #expect(try await StrataTool.run("import", second, "--model", Self.model, "--from", dumpFile.path).status == 0)
        let again = try await StrataTool.run("dump", second)
        #expect(try normalized(again.output) == normalized(dump.output))

        let emma = try #require(try normalized(dump.output).first { $0.hasPrefix(#"{"entity":"Book""#) && $0.contains(#""title":"Emma""#) })
        #expect(emma.contains(#""chapters":["Chapter(Preface)","Chapter(Volume I, Chapter I)"]"#), "ordered relationships keep their order")
        #expect(emma.contains(#""price":"12.5""#) && emma.contains(#""cover":"AAEC\/w==""#))
        let austen = try #require(try normalized(dump.output).first { $0.contains("Jane Austen") })
        #expect(austen.contains(#""born":"1775-12-16T00:00:00Z""#), "a whole second has no fraction to keep")
    }

    @Test func aBadLineIsReportedAndNothingIsWritten() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.store").path
        #expect(try await StrataTool.run("import", store, "--model", Self.model, "--from", Self.objects).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        let cases: [(String, String)] = [
            (#"{"entity": "Book", "id": "x", "values": {"title": "T", "pages": "many"}}"#,
             "bad.jsonl:2: Book.pages: the JSON value many is not a Integer 32 value; nothing was imported"),
            (#"{"entity": "Magazine", "id": "x"}"#, "bad.jsonl:2: the model has no (concrete) entity 'Magazine'; nothing was imported"),
            (#"{"entity": "Book", "id": "x", "values": {"title": "T"}, "relationships": {"author": "nobody"}}"#,
             "bad.jsonl:2: Book.author refers to 'nobody', which no line defines; nothing was imported"),
            ("not json", "bad.jsonl:2: not a JSON object; nothing was imported"),
        ]
        for (line, message) in cases {
            let bad = directory.appendingPathComponent("bad.jsonl")
            try Data((#"{"entity": "Chapter", "id": "ok", "values": {"title": "fine"}}"# + "\n" + line + "\n").utf8).write(to: bad)
            let result = try await StrataTool.run("import", store, "--model", Self.model, "--from", bad.path)
            #expect(result.status != 0)
            #expect(result.errors.hasSuffix(message + "\n"), "\(result.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "the store is unchanged")
        }
        let missing = directory.appendingPathComponent("missing.jsonl")
        try Data(#"{"entity": "Book", "id": "x", "values": {"pages": 3}}"#.utf8).write(to: missing)
        let invalid = try await StrataTool.run("import", store, "--model", Self.model, "--from", missing.path)
        #expect(invalid.status != 0)
        #expect(invalid.errors.contains("Book.title: a required attribute has no value"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test func inspectSaysWhatTheStoreHoldsAndWhoWroteIt() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.store").path
        #expect(try await StrataTool.run("import", store, "--model", Self.model, "--from", Self.objects).status == 0)
        let result = try await StrataTool.run("inspect", store, "--model", Self.model)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Store \(store)")
        #expect(lines.contains("  written by the model Library"))
        #expect(lines.contains("  objects: 5 in 3 chunks"))
        // Metadata as a person reads it, not Swift's debug form of Strata's types.
        #expect(lines.contains("  metadata StoreObjectCounts = {Author: 1, Book: 2, Chapter: 2}"))
        #expect(!result.output.contains("MetadataValue"))
        #expect(lines.contains("  model version hashes (Core Data's):"))
        #expect(lines.contains { $0.hasPrefix("  model: carried in the store (") })
        #expect(lines.contains("    Book 2"))
        #expect(lines.contains("  checksums: every chunk's checksum holds"))

        let other = try await StrataTool.run("inspect", store, "--model", "Tests/Models/Catalog.xcdatamodeld")
        #expect(other.output.contains("  written by no version of model 'Catalog' (Catalog, Catalog 2, Catalog 10) wrote the store"))

        let json = try await StrataTool.run("inspect", store, "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((report["objectCounts"] as? [String: Int]) == ["Author": 1, "Book": 2, "Chapter": 2])
        let metadata = try #require(report["userMetadata"] as? [String: Any])
        #expect(metadata["StoreObjectCounts"] as? [String: Int] == ["Author": 1, "Book": 2, "Chapter": 2])
    }

    @Test func verifyFindsDamageAndInspectNamesTheChunk() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.store")
        #expect(try await StrataTool.run("import", store.path, "--model", Self.model, "--from", Self.objects).status == 0)
        let sound = try await StrataTool.run("verify", store.path, "--model", Self.model)
        #expect(sound.status == 0)
        #expect(sound.output == "\(store.path): sound (5 objects, 3 chunks)\n")

        var bytes = try Data(contentsOf: store)
        bytes[bytes.count - 30] ^= 0xFF
        try bytes.write(to: store)
        let damaged = try await StrataTool.run("verify", store.path)
        #expect(damaged.status == 1)
        #expect(damaged.output.contains(": 1 problem\n") || damaged.output.contains(" problems\n"))
        let inspect = try await StrataTool.run("inspect", store.path)
        #expect(inspect.status == 1)
        #expect(inspect.output.contains("is damaged") || inspect.output.contains("reading stopped"))
    }

    @Test func toolsReportBadFilesWithoutAStackTrace() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not a store".utf8).write(to: text)
        for command in ["inspect", "verify", "dump"] {
            let result = try await StrataTool.run(command, text.path)
            #expect(result.status != 0)
            #expect(result.errors == "Error: \(text.path), byte 0: this is not a Strata binary store (its first bytes are wrong)\n")
        }
    }
}
