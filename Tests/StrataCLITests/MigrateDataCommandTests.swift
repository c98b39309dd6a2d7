import Foundation
import Strata
import Testing

/// `strata migrate` on a step that makes a value required: planned without a store, refused by
/// the data with every object named, and done with `--fill-defaults`; and `strata import` with
/// nothing to import.
@Suite struct MigrateDataCommandTests {
    /// A bundle whose second version makes `Note.title` required, with no default.
    static func notesBundle(in directory: URL) throws -> URL {
        let bundle = directory.appendingPathComponent("Notes.xcdatamodeld")
        for (name, optional) in [("Notes", true), ("Notes 2", false)] {
            let model = try ManagedObjectModel {
                EntityDescription("Note") {
                    AttributeDescription("title", .string, optional: optional)
                    AttributeDescription("order", .integer32)
                }
            }
            try model.write(toModelAt: bundle.appendingPathComponent("\(name).xcdatamodel"))
        }
        return bundle
    }

    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migrate-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aStepIsPlannedWithoutAStoreAndSaysWhatTheDataDecides() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try Self.notesBundle(in: directory)
        let result = try await StrataTool.run("migrate", "--plan", "--model", bundle.path, "--from", "Notes", "--to", "Notes 2")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("Versions Notes → Notes 2 of Notes\nPlan: 1 stage to 'Notes 2'\n  1. Notes → Notes 2 (inferred)\n"))
        #expect(result.output.contains(
            "       the data decides: Note.title: it becomes required, has no default value, and has no value here (§3: optional → required, no default)\n"))

        let noStore = try await StrataTool.run("migrate", "--model", bundle.path)
        #expect(noStore.status != 0)
        #expect(noStore.errors.contains("give a store to migrate, or --plan --from VERSION to plan between two versions"))
    }

    @Test func missingValuesFailNamingEachObjectThenFillDefaultsFillsThem() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try Self.notesBundle(in: directory)
        let store = directory.appendingPathComponent("Notes.store")
        let notes = directory.appendingPathComponent("notes.jsonl")
        try Data("""
            {"entity": "Note", "id": "a", "values": {"title": "Kept", "order": 1}}
            {"entity": "Note", "id": "b", "values": {"order": 2}}
            """.utf8).write(to: notes)
        let v1 = bundle.appendingPathComponent("Notes.xcdatamodel").path
        #expect(try await StrataTool.run("import", store.path, "--model", v1, "--from", notes.path).status == 0)
        let before = try Data(contentsOf: store)

        let refused = try await StrataTool.run("migrate", store.path, "--model", bundle.path)
        #expect(refused.status != 0)
        #expect(refused.errors.contains("Notes → Notes 2: 1 problem in the store's data, so the migration wrote nothing and the store is unchanged"))
        #expect(refused.errors.contains("/Note/p2: Note.title: it becomes required, has no default value, and has no value here"))
        #expect(refused.errors.contains("--fill-defaults"))
        #expect(try Data(contentsOf: store) == before)

        let filled = try await StrataTool.run("migrate", store.path, "--model", bundle.path, "--fill-defaults")
        #expect(filled.status == 0, "\(filled.errors)")
        #expect(filled.output.contains("Filled 1 missing value of Note.title with its default or its type's zero value (Notes → Notes 2)"))
        #expect(filled.output.contains("Migrated to 'Notes 2' and verified: 2 objects."))
    }

    @Test func importingNothingStillWritesAnEmptyStore() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try Self.notesBundle(in: directory)
        let store = directory.appendingPathComponent("Empty.store")
        let empty = directory.appendingPathComponent("empty.jsonl")
        try Data().write(to: empty)
        let result = try await StrataTool.run("import", store.path, "--model", bundle.path, "--from", empty.path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "imported 0 objects into \(store.path)\n")
        let verify = try await StrataTool.run("verify", store.path)
        #expect(verify.status == 0, "\(verify.errors)")
        #expect(verify.output == "\(store.path): sound (0 objects, 0 chunks)\n")
    }
}
