import Foundation
import StrataTestSupport

/// Reads a Core Data SQLite store's metadata and cached model through `Tests/Scripts/read-coredata-store.py`
/// (Python's sqlite3, plistlib and zlib), for tests that hold Strata to what Core Data wrote.
enum CoreDataStoreReader {
    struct Metadata: Decodable {
        /// Entity name → version hash, in hex.
        var hashes: [String: String]
        /// `NSStoreModelVersionHashesDigest` (base64), when the store has it.
        var digest: String?
        /// `NSStoreModelVersionChecksumKey` (base64), when the store has it.
        var checksum: String?
    }

    static let script = Fixtures.packageRoot.appendingPathComponent("Tests/Scripts/read-coredata-store.py")

    static var isAvailable: Bool {
        (try? run(["-c", "import sqlite3, plistlib, zlib"])) != nil
    }

    /// The store's `Z_METADATA`, read from a copy so the fixture is never touched.
    static func metadata(ofStoreAt store: URL) throws -> Metadata {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        return try JSONDecoder().decode(Metadata.self, from: run([script.path, "metadata", copy.path]))
    }

    /// The model cached in the store's `Z_MODELCACHE`, written as an `.xcdatamodel` into `directory`.
    static func cachedModel(ofStoreAt store: URL, into directory: URL) throws -> URL {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let model = directory.appendingPathComponent("Cached.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        _ = try run([script.path, "model", copy.path, model.appendingPathComponent("contents").path])
        return model
    }

    struct Schema: Decodable {
        struct Object: Decodable {
            var type: String
            var name: String
            var sql: String
        }
        struct Entity: Decodable, Equatable {
            var number: Int
            var name: String
            var `super`: Int
        }
        var objects: [Object]
        var entities: [Entity]
    }

    /// The store's `CREATE` statements (from `sqlite_master`) and `Z_PRIMARYKEY` entity rows.
    static func schema(ofStoreAt store: URL) throws -> Schema {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        return try JSONDecoder().decode(Schema.self, from: run([script.path, "schema", copy.path]))
    }

    /// The raw bytes of the store's `Z_METADATA.Z_PLIST`, and its `Z_UUID`.
    static func metadataPlist(ofStoreAt store: URL) throws -> (plist: Data, uuid: String) {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let out = copy.deletingLastPathComponent().appendingPathComponent("plist.bin")
        let printed = try JSONDecoder().decode([String: String].self, from: run([script.path, "plist", copy.path, out.path]))
        return (try Data(contentsOf: out), printed["uuid"] ?? "")
    }

    /// A metadata property list as Python's plistlib reads it: keys to values, bytes in hex.
    static func readPlist(_ data: Data) throws -> [String: Any] {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("metadata.plist")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try data.write(to: file)
        return try JSONSerialization.jsonObject(with: run([script.path, "readplist", file.path])) as? [String: Any] ?? [:]
    }

    /// The raw bytes of the store's `Z_MODELCACHE.Z_CONTENT`.
    static func modelCache(ofStoreAt store: URL) throws -> Data {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let out = copy.deletingLastPathComponent().appendingPathComponent("cache.bin")
        _ = try run([script.path, "cache", copy.path, out.path])
        return try Data(contentsOf: out)
    }

    /// A copy of the store with its `-wal` and `-shm` files, in a new temporary directory.
    private static func copied(_ store: URL) throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: store.path + suffix)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(source.lastPathComponent))
        }
        return directory.appendingPathComponent(store.lastPathComponent)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static func run(_ arguments: [String]) throws -> Data {
        let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments)
        guard result.status == 0 else {
            throw Failure(description: "python3 \(arguments.joined(separator: " ")): " + String(decoding: result.errors, as: UTF8.self))
        }
        return result.output
    }
}
