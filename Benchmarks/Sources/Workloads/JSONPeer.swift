import Foundation

/// The naive Swift baseline: the records as `Codable` structs, one JSON file.
public enum JSONPeer {
    /// Workload 1: encodes every record and writes the file atomically.
    public static func save(_ records: [PersonRecord], to url: URL) throws {
        try JSONEncoder().encode(records).write(to: url, options: .atomic)
    }

    /// Workload 2: reads the file and decodes every record.
    public static func load(_ url: URL) throws -> [PersonRecord] {
        try JSONDecoder().decode([PersonRecord].self, from: Data(contentsOf: url))
    }

    /// A file of `count` people, made once per size (see ``Fixtures``).
    public static func fixture(count: Int) async throws -> URL {
        try await Fixtures.file("people.json", count: count) { url in
            try save(PersonRecord.generate(count: count), to: url)
        }
    }
}
